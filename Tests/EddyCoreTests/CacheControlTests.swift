import EddyCore
import XCTest

/// RFC 9111 section 5.2.
final class CacheControlTests: XCTestCase {
    func test_parse_nil_isDefault() {
        XCTAssertEqual(CacheControl.parse(nil), CacheControl())
        XCTAssertFalse(CacheControl.parse(nil).forbidsSharedStorage)
    }

    func test_parse_empty_isDefault() {
        XCTAssertEqual(CacheControl.parse(""), CacheControl())
        XCTAssertEqual(CacheControl.parse(" , ,"), CacheControl())
    }

    func test_parse_booleanDirectives_areSet() {
        let cc = CacheControl.parse("no-store, no-cache, private, public, must-revalidate, proxy-revalidate")
        XCTAssertTrue(cc.noStore)
        XCTAssertTrue(cc.noCache)
        XCTAssertTrue(cc.isPrivate)
        XCTAssertTrue(cc.isPublic)
        XCTAssertTrue(cc.mustRevalidate)
        XCTAssertTrue(cc.proxyRevalidate)
        XCTAssertNil(cc.maxAge)
        XCTAssertNil(cc.sMaxAge)
    }

    func test_parse_ages_areSeconds() {
        let cc = CacheControl.parse("max-age=3600, s-maxage=60")
        XCTAssertEqual(cc.maxAge, 3600)
        XCTAssertEqual(cc.sMaxAge, 60)
    }

    func test_parse_directiveNames_areCaseInsensitive() {
        let cc = CacheControl.parse("Max-Age=10, NO-STORE, S-MaxAge=5")
        XCTAssertEqual(cc.maxAge, 10)
        XCTAssertEqual(cc.sMaxAge, 5)
        XCTAssertTrue(cc.noStore)
    }

    func test_parse_quotedArgument_isAccepted() {
        // Recipients ought to accept both token and quoted-string forms (section 5.2).
        XCTAssertEqual(CacheControl.parse("max-age=\"120\"").maxAge, 120)
    }

    func test_parse_whitespaceAroundTokens_isTrimmed() {
        let cc = CacheControl.parse("  max-age = 30 ,\tpublic ")
        XCTAssertEqual(cc.maxAge, 30)
        XCTAssertTrue(cc.isPublic)
    }

    func test_parse_malformedMaxAge_isZero() {
        XCTAssertEqual(CacheControl.parse("max-age=abc").maxAge, 0)
        XCTAssertEqual(CacheControl.parse("max-age=-5").maxAge, 0)
        XCTAssertEqual(CacheControl.parse("max-age").maxAge, 0)
        XCTAssertEqual(CacheControl.parse("s-maxage=").sMaxAge, 0)
    }

    func test_parse_hugeMaxAge_saturates() {
        XCTAssertEqual(CacheControl.parse("max-age=99999999999999999999999").maxAge, Int.max)
    }

    func test_parse_unknownDirectives_areIgnored() {
        let cc = CacheControl.parse("immutable, stale-while-revalidate=30, x-foo=\"bar\", max-age=5")
        var expected = CacheControl()
        expected.maxAge = 5
        expected.staleWhileRevalidate = 30 // RFC 5861, known since
        XCTAssertEqual(cc, expected)
    }

    func test_parse_qualifiedNoCache_doesNotSetNoCache() {
        XCTAssertFalse(CacheControl.parse("no-cache=\"Set-Cookie\"").noCache)
    }

    func test_parse_qualifiedPrivate_forbidsSharedStorage() {
        // RFC 9111 section 5.2.2.7: a shared cache MUST NOT store the listed fields. eddy does not
        // strip individual fields, so it must not store the response at all.
        let cc = CacheControl.parse("private=\"X-User\", max-age=60")
        XCTAssertTrue(cc.isPrivate)
        XCTAssertTrue(cc.forbidsSharedStorage)
        XCTAssertEqual(cc.maxAge, 60)
    }

    func test_forbidsSharedStorage_noStoreOrPrivate_isTrue() {
        XCTAssertTrue(CacheControl.parse("no-store").forbidsSharedStorage)
        XCTAssertTrue(CacheControl.parse("private").forbidsSharedStorage)
        XCTAssertFalse(CacheControl.parse("no-cache, max-age=0").forbidsSharedStorage)
        XCTAssertFalse(CacheControl.parse("public").forbidsSharedStorage)
    }
}
