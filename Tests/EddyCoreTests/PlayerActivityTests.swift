import EddyCore
import XCTest

/// Downloads give way to players fed from the origin, and only while they are.
final class PlayerActivityTests: XCTestCase {
    func test_aRecentStampHoldsDownloadsBack_untilTheWindowEnds() {
        let p = PlayerActivity()
        XCTAssertEqual(p.holdBack(now: 100), 0, "no player yet")
        p.fed(now: 100)
        XCTAssertEqual(p.holdBack(now: 100.1), 0.4, accuracy: 1e-9)
        XCTAssertEqual(p.holdBack(now: 100.48), 0.05, accuracy: 1e-9, "never a busy loop of tiny waits")
        XCTAssertEqual(p.holdBack(now: 100.5), 0)
        p.fed(now: 99) // a late stamp from another loop does not move the last one back
        XCTAssertEqual(p.holdBack(now: 100.6), 0)
    }

    func test_turnedOffItHoldsNothing() {
        let p = PlayerActivity(enabled: false)
        p.fed(now: 5)
        XCTAssertEqual(p.holdBack(now: 5), 0)
        p.enabled = true
        XCTAssertGreaterThan(p.holdBack(now: 5), 0)
    }

    func test_theDownloadLimiterWaitsForPlayersAndItsBucket() {
        let p = PlayerActivity()
        let unlimited = RateLimiter(rate: 0, yieldingTo: p)
        XCTAssertEqual(unlimited.wait(now: 10), 0)
        p.fed(now: 10)
        XCTAssertEqual(unlimited.wait(now: 10.2), 0.3, accuracy: 1e-9)
        let own = RateLimiter(rate: 0) // a job's own limiter does not yield: one check is enough
        XCTAssertEqual(own.wait(now: 10.2), 0)
    }
}
