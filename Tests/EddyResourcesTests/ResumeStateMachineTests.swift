@testable import EddyResources
import XCTest

final class ResumeStateMachineTests: XCTestCase {
    func test_needFill_atANewPosition_startsAFillThatIsNotAResume() {
        var m = ResumeStateMachine(maxAttempts: 4)
        XCTAssertEqual(m.needFill(at: 0, stalledAt: nil), .startFill(isResume: false))
        XCTAssertEqual(m.needFill(at: 500, stalledAt: nil), .startFill(isResume: false))
    }

    func test_needFill_againWithoutProgress_retriesAfterABackoffThatDoubles() {
        var m = ResumeStateMachine(maxAttempts: 4)
        _ = m.needFill(at: 100, stalledAt: nil)
        XCTAssertEqual(m.needFill(at: 100, stalledAt: nil), .retry(after: 0.1))
        XCTAssertEqual(m.needFill(at: 100, stalledAt: nil), .keepWaiting, "the timer is pending")
        m.timerFired()
        XCTAssertEqual(m.needFill(at: 100, stalledAt: nil), .startFill(isResume: true))
        XCTAssertEqual(m.needFill(at: 100, stalledAt: nil), .retry(after: 0.2))
        m.timerFired()
        XCTAssertEqual(m.needFill(at: 100, stalledAt: nil), .startFill(isResume: true))
        XCTAssertEqual(m.needFill(at: 100, stalledAt: nil), .retry(after: 0.4))
    }

    func test_needFill_afterMaxAttemptsAtOnePosition_givesUp() {
        var m = ResumeStateMachine(maxAttempts: 3)
        _ = m.needFill(at: 7, stalledAt: nil)
        for _ in 0..<2 {
            guard case .retry = m.needFill(at: 7, stalledAt: nil) else { return XCTFail() }
            m.timerFired()
            XCTAssertEqual(m.needFill(at: 7, stalledAt: nil), .startFill(isResume: true))
        }
        XCTAssertEqual(m.needFill(at: 7, stalledAt: nil), .giveUp("upstream failed 3 times at byte 7"))
    }

    func test_progress_resetsTheFailures() {
        var m = ResumeStateMachine(maxAttempts: 4)
        _ = m.needFill(at: 0, stalledAt: nil)
        _ = m.needFill(at: 0, stalledAt: nil)
        m.timerFired()
        _ = m.needFill(at: 0, stalledAt: nil)
        XCTAssertEqual(m.failures, 1)
        m.progressed()
        XCTAssertEqual(m.failures, 0)
        XCTAssertEqual(m.needFill(at: 0, stalledAt: nil), .retry(after: 0.1))
    }

    func test_movingOn_resetsTheFailuresToo() {
        var m = ResumeStateMachine(maxAttempts: 2)
        _ = m.needFill(at: 0, stalledAt: nil)
        _ = m.needFill(at: 0, stalledAt: nil)
        XCTAssertEqual(m.needFill(at: 262_144, stalledAt: nil), .startFill(isResume: false))
        XCTAssertEqual(m.failures, 0)
    }

    func test_stalledOrigin_atThePosition_givesUpAtOnce() {
        var m = ResumeStateMachine(maxAttempts: 4)
        _ = m.needFill(at: 300, stalledAt: nil)
        XCTAssertEqual(m.needFill(at: 300, stalledAt: 300), .giveUp("upstream stalled at byte 300 for the stall timeout"))
    }

    func test_stall_elsewhere_orAtANewPosition_doesNotStopAFill() {
        var m = ResumeStateMachine(maxAttempts: 4)
        XCTAssertEqual(m.needFill(at: 300, stalledAt: 300), .startFill(isResume: false), "first ask: a new fill")
        XCTAssertEqual(m.needFill(at: 300, stalledAt: 900), .retry(after: 0.1))
        m.timerFired()
        XCTAssertEqual(m.needFill(at: 300, stalledAt: 100), .startFill(isResume: true), "a stall before this position is another fill's")
    }

    func test_timerFired_whileMovedOn_doesNotMakeANewPositionAResume() {
        var m = ResumeStateMachine(maxAttempts: 4)
        _ = m.needFill(at: 0, stalledAt: nil)
        _ = m.needFill(at: 0, stalledAt: nil)
        m.timerFired()
        XCTAssertEqual(m.needFill(at: 100, stalledAt: nil), .startFill(isResume: false))
    }
}
