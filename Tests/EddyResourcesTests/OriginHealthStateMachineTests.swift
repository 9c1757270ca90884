@testable import EddyResources
import XCTest

/// When an origin counts as unreachable, and the one probe at a time that hears it back.
final class OriginHealthStateMachineTests: XCTestCase {
    func test_aFailureMarksIt_andAnAnswerClearsIt() {
        var m = OriginHealthStateMachine()
        XCTAssertFalse(m.isUnreachable)
        XCTAssertTrue(m.failed(now: 100), "marked: worth a log line")
        XCTAssertTrue(m.isUnreachable)
        XCTAssertFalse(m.failed(now: 100.5), "already marked")
        XCTAssertTrue(m.answered())
        XCTAssertFalse(m.isUnreachable)
        XCTAssertEqual(m.failures, 0)
        XCTAssertFalse(m.answered(), "nothing to clear")
    }

    func test_oneProbeAtATime_afterABackoffThatDoublesUpTo30Seconds() {
        var m = OriginHealthStateMachine()
        m.failed(now: 0)
        XCTAssertFalse(m.claimProbe(now: 0.9), "the first probe waits a second")
        XCTAssertTrue(m.claimProbe(now: 1.0))
        XCTAssertFalse(m.claimProbe(now: 1.1), "one probe at a time")
        XCTAssertTrue(m.isUnreachable, "still unreachable while it probes")
        m.failed(now: 2) // the probe failed: 2 s
        XCTAssertFalse(m.claimProbe(now: 3.9))
        XCTAssertTrue(m.claimProbe(now: 4.0))
        var waits: [Double] = []
        var now = 4.0
        for _ in 0..<8 {
            m.failed(now: now)
            guard case let .unreachable(_, probeAt) = m.state else { return XCTFail() }
            waits.append(probeAt - now)
            now = probeAt
            XCTAssertTrue(m.claimProbe(now: now))
        }
        XCTAssertEqual(waits, [4, 8, 16, 30, 30, 30, 30, 30])
    }

    func test_aProbeNeverHeardOf_isTakenAsLostAfterAMinute() {
        var m = OriginHealthStateMachine()
        m.failed(now: 0)
        XCTAssertTrue(m.claimProbe(now: 1))
        XCTAssertFalse(m.claimProbe(now: 60))
        XCTAssertTrue(m.claimProbe(now: 61))
    }

    func test_aReachableOriginIsNeverProbed_andKeepsWhenItWasFirstMarked() {
        var m = OriginHealthStateMachine()
        XCTAssertFalse(m.claimProbe(now: 1000))
        m.failed(now: 5)
        m.failed(now: 9)
        guard case let .unreachable(since, _) = m.state else { return XCTFail() }
        XCTAssertEqual(since, 5)
    }
}
