@testable import EddyCore
import XCTest

/// RFC 9110 section 10.2.3.
final class RetryAfterTests: XCTestCase {
    private let now = 784_111_777 // Sun, 06 Nov 1994 08:49:37 GMT

    func test_delaySeconds_isThatManySeconds() {
        XCTAssertEqual(RetryAfter.seconds("120", now: now), 120)
        XCTAssertEqual(RetryAfter.seconds(" 0 ", now: now), 0)
    }

    func test_httpDate_isSecondsFromNow() {
        XCTAssertEqual(RetryAfter.seconds("Sun, 06 Nov 1994 08:50:07 GMT", now: now), 30)
    }

    func test_dateInThePast_isZero() {
        XCTAssertEqual(RetryAfter.seconds("Sun, 06 Nov 1994 08:00:00 GMT", now: now), 0)
    }

    func test_hugeDelay_saturates() {
        XCTAssertEqual(RetryAfter.seconds("99999999999999999999999", now: now), Double(Int.max))
    }

    func test_malformedOrAbsent_isNil() {
        for v in ["", "-5", "1.5", "soon", "120s", "Sun, 06 Nov 1994"] {
            XCTAssertNil(RetryAfter.seconds(v, now: now), v)
        }
        XCTAssertNil(RetryAfter.seconds(nil, now: now))
    }
}
