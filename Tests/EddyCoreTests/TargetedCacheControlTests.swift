import EddyCore
import XCTest

/// RFC 9213 section 2.1: a targeted field is a strict Structured Field Dictionary; an invalid one
/// is ignored as a whole and Cache-Control applies (the conformance suite's cdn-cc-invalid-*).
final class TargetedCacheControlTests: XCTestCase {
    func testValidDictionaries() {
        XCTAssertEqual(TargetedCacheControl.parse("max-age=600")?.maxAge, 600)
        XCTAssertEqual(TargetedCacheControl.parse("foobar, max-age=3600")?.maxAge, 3600)
        XCTAssertEqual(TargetedCacheControl.parse("max-age=99999999999")?.maxAge, 1 << 31)
        XCTAssertEqual(TargetedCacheControl.parse("s-maxage=5;x=1, stale-if-error=30")?.sMaxAge, 5)
        XCTAssertEqual(TargetedCacheControl.parse("s-maxage=5, stale-if-error=30")?.staleIfError, 30)
        XCTAssertTrue(TargetedCacheControl.parse("no-store")?.noStore == true)
        XCTAssertTrue(TargetedCacheControl.parse("private, max-age=1")?.isPrivate == true)
        XCTAssertTrue(TargetedCacheControl.parse("no-cache")?.noCache == true)
        XCTAssertFalse(TargetedCacheControl.parse("no-store=?0")?.noStore ?? true)
        XCTAssertEqual(TargetedCacheControl.parse("none"), CacheControl(), "RFC 9213 3.1's placeholder: valid, no directive")
    }

    func testInvalidFieldsAreIgnoredWhole() {
        for v in ["", "max-age=10000, &&&&&", "max-age =100", "max-age= 100", "MaX-aGe=3600", "max-age=\"10000\"",
                  "max-age=10.5", "max-age=-1", "max-age=(1 2)", "max-age=1000000000000000"] {
            XCTAssertNil(TargetedCacheControl.parse(v), v)
        }
    }

    func testAnInvalidTargetedFieldFallsBackToTheNextAndToCacheControl() {
        let h = HTTPHeaders([("Cache-Control", "no-store"), ("CDN-Cache-Control", "max-age=\"10000\"")])
        XCTAssertTrue(CacheControl.effective(h, targeted: ["CDN-Cache-Control"]).noStore)
        let two = HTTPHeaders([("Eddy-Cache-Control", "max-age=1, &"), ("CDN-Cache-Control", "max-age=60")])
        XCTAssertEqual(CacheControl.effective(two, targeted: ["Eddy-Cache-Control", "CDN-Cache-Control"]).maxAge, 60)
    }
}
