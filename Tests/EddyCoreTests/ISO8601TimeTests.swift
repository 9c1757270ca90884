import EddyCore
import Foundation
import XCTest

/// RFC 3339 section 5.6 `date-time` in UTC, checked against Foundation's formatter.
final class ISO8601TimeTests: XCTestCase {
    func test_format_epoch_isMidnight1970() {
        XCTAssertEqual(ISO8601Time.format(0), "1970-01-01T00:00:00Z")
    }

    func test_format_rfc9110Example() {
        XCTAssertEqual(ISO8601Time.format(784_111_777), "1994-11-06T08:49:37Z")
    }

    func test_format_beforeEpoch_countsBack() {
        XCTAssertEqual(ISO8601Time.format(-1), "1969-12-31T23:59:59Z")
    }

    func test_format_leapDay() {
        XCTAssertEqual(ISO8601Time.format(951_782_400), "2000-02-29T00:00:00Z")
    }

    func test_format_agreesWithFoundation_overRandomTimes() {
        let f = ISO8601DateFormatter()
        var g = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let t = Int.random(in: -2_000_000_000...4_000_000_000, using: &g)
            XCTAssertEqual(ISO8601Time.format(t), f.string(from: Date(timeIntervalSince1970: TimeInterval(t))), "\(t)")
        }
    }
}
