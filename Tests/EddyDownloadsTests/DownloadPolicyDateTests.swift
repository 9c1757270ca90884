import XCTest
@testable import EddyDownloads

/// `expires` dates: RFC 3339 exactly (schemathesis found `2026-12-24garbage` and `2026-02-31`
/// accepted by Foundation's lenient parser).
final class DownloadPolicyDateTests: XCTestCase {
    func testValidDatesAndDateTimes() {
        XCTAssertEqual(DownloadPolicy.date("1970-01-01"), 0)
        XCTAssertEqual(DownloadPolicy.date("2026-12-24"), 1_798_070_400)
        XCTAssertEqual(DownloadPolicy.date(" 2026-12-24T18:00:00Z "), 1_798_070_400 + 18 * 3600)
        XCTAssertEqual(DownloadPolicy.date("2026-12-24T18:00:00.5+01:00"), 1_798_070_400 + 17 * 3600)
        XCTAssertEqual(DownloadPolicy.date("2024-02-29"), 1_709_164_800)
    }

    func testEverythingElseIsRefused() {
        for t in ["2026-12-24T18:00:00+99:99", "2026-12-24T99:99:99Z", "2026-12-24garbage", "2026/12/24", "2026-02-31",
                  "9-9-9", "1.1.1", "-2026-12-24", "2026-12-24T18:00:00", "2025-02-29", "2026-13-01", ""] {
            XCTAssertNil(DownloadPolicy.date(t), t)
        }
    }
}
