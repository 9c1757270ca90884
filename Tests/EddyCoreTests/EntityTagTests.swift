import EddyCore
import XCTest

/// RFC 9110 section 8.8.3.
final class EntityTagTests: XCTestCase {
    func test_parse_strong_keepsQuotes() {
        let t = EntityTag.parse("\"xyzzy\"")
        XCTAssertEqual(t, EntityTag(opaque: "\"xyzzy\"", isWeak: false))
        XCTAssertEqual(t?.headerValue, "\"xyzzy\"")
    }

    func test_parse_weak_isWeak() {
        let t = EntityTag.parse("W/\"xyzzy\"")
        XCTAssertEqual(t, EntityTag(opaque: "\"xyzzy\"", isWeak: true))
        XCTAssertEqual(t?.headerValue, "W/\"xyzzy\"")
    }

    func test_parse_emptyOpaque_isValid() {
        XCTAssertEqual(EntityTag.parse("\"\""), EntityTag(opaque: "\"\"", isWeak: false))
    }

    func test_parse_surroundingWhitespace_isTrimmed() {
        XCTAssertEqual(EntityTag.parse("  \"a\"\t"), EntityTag(opaque: "\"a\"", isWeak: false))
    }

    func test_parse_invalid_isNil() {
        for v in ["", "xyzzy", "\"", "\"abc", "abc\"", "\"a\"b\"", "w/\"a\"", "W/", "W/abc", "*"] {
            XCTAssertNil(EntityTag.parse(v), v)
        }
    }

    func test_strongMatches_bothStrongSame_isTrue() {
        let a = EntityTag.parse("\"1\"")!
        XCTAssertTrue(a.strongMatches(EntityTag.parse("\"1\"")!))
    }

    func test_strongMatches_anyWeak_isFalse() {
        // The comparison table of section 8.8.3.2.
        let w1 = EntityTag.parse("W/\"1\"")!, s1 = EntityTag.parse("\"1\"")!, s2 = EntityTag.parse("\"2\"")!
        XCTAssertFalse(w1.strongMatches(w1))
        XCTAssertFalse(w1.strongMatches(s1))
        XCTAssertFalse(s1.strongMatches(w1))
        XCTAssertFalse(s1.strongMatches(s2))
    }

    func test_weakMatches_mixedWeakness_comparesOpaqueOnly() {
        let w1 = EntityTag.parse("W/\"1\"")!, w2 = EntityTag.parse("W/\"2\"")!, s1 = EntityTag.parse("\"1\"")!
        XCTAssertTrue(w1.weakMatches(w1))
        XCTAssertTrue(w1.weakMatches(s1))
        XCTAssertTrue(s1.weakMatches(w1))
        XCTAssertTrue(s1.weakMatches(s1))
        XCTAssertFalse(w1.weakMatches(w2))
    }

    func test_parseList_several_parsesEach() {
        XCTAssertEqual(EntityTag.parseList("\"a\", W/\"b\",\"c\""),
                       [EntityTag(opaque: "\"a\"", isWeak: false), EntityTag(opaque: "\"b\"", isWeak: true), EntityTag(opaque: "\"c\"", isWeak: false)])
    }

    func test_parseList_star_isNilMeaningAny() {
        XCTAssertNil(EntityTag.parseList("*"))
        XCTAssertNil(EntityTag.parseList("  *  "))
    }

    func test_parseList_invalidMembers_areSkipped() {
        XCTAssertEqual(EntityTag.parseList("junk, \"ok\""), [EntityTag(opaque: "\"ok\"", isWeak: false)])
        XCTAssertEqual(EntityTag.parseList(""), [])
    }

    func test_parseList_commaInsideOpaqueTag_isOneTag() {
        // etagc includes %x2C: a comma inside the quotes is part of the tag, not a list separator.
        XCTAssertEqual(EntityTag.parseList("\"a,b\""), [EntityTag(opaque: "\"a,b\"", isWeak: false)])
        XCTAssertEqual(EntityTag.parseList("W/\"x, y\", \"z\""),
                       [EntityTag(opaque: "\"x, y\"", isWeak: true), EntityTag(opaque: "\"z\"", isWeak: false)])
    }
}
