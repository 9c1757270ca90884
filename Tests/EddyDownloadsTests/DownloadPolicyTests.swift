import XCTest
@testable import EddyDownloads

/// A download's keeping policy as the API reads it.
final class DownloadPolicyTests: XCTestCase {
    func test_durationsAndDates() throws {
        let t0 = 1_800_000_000
        XCTAssertEqual(try DownloadPolicy.parse(priority: nil, expires: "90s", createdAt: t0).expiresAt, t0 + 90)
        XCTAssertEqual(try DownloadPolicy.parse(priority: nil, expires: "30m", createdAt: t0).expiresAt, t0 + 1800)
        XCTAssertEqual(try DownloadPolicy.parse(priority: nil, expires: "12h", createdAt: t0).expiresAt, t0 + 43_200)
        XCTAssertEqual(try DownloadPolicy.parse(priority: nil, expires: "7d", createdAt: t0).expiresAt, t0 + 604_800)
        XCTAssertEqual(try DownloadPolicy.parse(priority: nil, expires: "2w", createdAt: t0).expiresAt, t0 + 1_209_600)
        XCTAssertEqual(try DownloadPolicy.parse(priority: nil, expires: "3600", createdAt: t0).expiresAt, t0 + 3600)
        XCTAssertEqual(try DownloadPolicy.parse(priority: nil, expires: "2026-12-24", createdAt: t0).expiresAt, 1_798_070_400)
        XCTAssertEqual(try DownloadPolicy.parse(priority: nil, expires: "2026-12-24T18:00:00Z", createdAt: t0).expiresAt, 1_798_135_200)
        XCTAssertNil(try DownloadPolicy.parse(priority: nil, expires: nil, createdAt: t0).expiresAt)
    }

    func test_priorities() throws {
        XCTAssertEqual(try DownloadPolicy.parse(priority: nil, expires: nil, createdAt: 0).priority, .normal)
        XCTAssertEqual(try DownloadPolicy.parse(priority: "Important", expires: nil, createdAt: 0).priority, .important)
        XCTAssertThrowsError(try DownloadPolicy.parse(priority: "urgent", expires: nil, createdAt: 0))
    }

    func test_badExpiries_areErrorsNamingTheField() {
        for bad in ["", "soon", "-5s", "5y", "1.5h", "99999999999999d", "d", "2026-13-45", "+7d", "７d"] {
            XCTAssertThrowsError(try DownloadPolicy.parse(priority: nil, expires: bad, createdAt: 0), bad) { e in
                XCTAssertTrue((e as? DownloadInputError)?.description.hasPrefix("expires:") == true, bad)
            }
        }
    }
}
