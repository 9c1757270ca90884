@testable import EddyCore
import XCTest

/// The download rate limit's bucket, as a value on a clock the test moves.
final class TokenBucketTests: XCTestCase {
    func test_noRateAdmitsEverything() {
        var b = TokenBucket(rate: 0)
        for _ in 0..<1000 { XCTAssertEqual(b.admit(1 << 20, now: 0), 0) }
    }

    func test_aChunkGoesWhileTheBucketIsNotEmptyAndTheNextWaitsForTheDebt() {
        var b = TokenBucket(rate: 1000) // a burst of 16 KiB: a quarter second is less
        XCTAssertEqual(b.admit(16 << 10, now: 0), 0)
        XCTAssertEqual(b.admit(1, now: 0), 0.001, accuracy: 1e-9, "empty: one byte's time")
        XCTAssertEqual(b.admit(100_000, now: 0.5), 0, "refilled 500")
        let wait = b.admit(1, now: 0.5)
        XCTAssertEqual(wait, (100_000 - 500 + 1) / 1000, accuracy: 1e-6, "the debt is paid before the next")
        XCTAssertEqual(b.admit(1, now: 0.5 + wait - 0.01), (10 - 1 + 1) / 1000 * 1.0, accuracy: 0.011)
        XCTAssertEqual(b.admit(1, now: 0.5 + wait + 0.01), 0)
    }

    func test_overALongRunItAdmitsTheRatePlusOneBurst() {
        for rate in [100_000, 4 << 20] {
            var b = TokenBucket(rate: rate)
            var now = 0.0, admitted = 0
            // Eight fetches offering 16 KiB chunks, each retrying when told to wait.
            var next = Array(repeating: 0.0, count: 8)
            while now < 10 {
                let i = next.indices.min { next[$0] < next[$1] }!
                now = next[i]
                let w = b.admit(16 << 10, now: now)
                if w == 0 { admitted += 16 << 10; next[i] = now + 0.0001 } else { next[i] = now + w }
            }
            let expected = Double(rate) * 10 + Double(TokenBucket.burst(for: rate))
            XCTAssertEqual(Double(admitted), expected, accuracy: Double(8 * 16 << 10) + 0.01 * expected, "rate \(rate)")
        }
    }

    func test_aNewRateAppliesFromNowAndKeepsTheDebt() {
        var b = TokenBucket(rate: 1 << 20)
        XCTAssertEqual(b.admit(1 << 20, now: 0), 0) // 256 KiB of burst, 768 KiB of debt
        b.setRate(2 << 20, now: 0)
        XCTAssertEqual(b.admit(1, now: 0), Double((768 << 10) + 1) / Double(2 << 20), accuracy: 1e-9)
        b.setRate(0, now: 0)
        XCTAssertEqual(b.admit(1, now: 0), 0, "0 lifts the limit")
        XCTAssertEqual(b.rate, 0)
    }
}
