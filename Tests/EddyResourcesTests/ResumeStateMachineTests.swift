@testable import EddyResources
import XCTest

final class ResumeStateMachineTests: XCTestCase {
    func test_needFill_atANewPosition_startsAFillThatIsNotAResume() {
        var m = ResumeStateMachine(maxAttempts: 4)
        XCTAssertEqual(m.needFill(at: 0, stalledAt: nil, afterFailure: false), .startFill(isResume: false))
        XCTAssertEqual(m.needFill(at: 500, stalledAt: nil, afterFailure: false), .startFill(isResume: false))
    }

    func test_needFill_againWithoutProgress_retriesAfterABackoffThatDoubles() {
        var m = ResumeStateMachine(maxAttempts: 4)
        _ = m.needFill(at: 100, stalledAt: nil, afterFailure: false)
        XCTAssertEqual(m.needFill(at: 100, stalledAt: nil, afterFailure: false), .retry(after: 0.1))
        XCTAssertEqual(m.needFill(at: 100, stalledAt: nil, afterFailure: false), .keepWaiting, "the timer is pending")
        m.timerFired()
        XCTAssertEqual(m.needFill(at: 100, stalledAt: nil, afterFailure: false), .startFill(isResume: true))
        XCTAssertEqual(m.needFill(at: 100, stalledAt: nil, afterFailure: false), .retry(after: 0.2))
        m.timerFired()
        XCTAssertEqual(m.needFill(at: 100, stalledAt: nil, afterFailure: false), .startFill(isResume: true))
        XCTAssertEqual(m.needFill(at: 100, stalledAt: nil, afterFailure: false), .retry(after: 0.4))
    }

    func test_needFill_afterMaxAttemptsAtOnePosition_givesUp() {
        var m = ResumeStateMachine(maxAttempts: 3)
        _ = m.needFill(at: 7, stalledAt: nil, afterFailure: false)
        for _ in 0..<2 {
            guard case .retry = m.needFill(at: 7, stalledAt: nil, afterFailure: false) else { return XCTFail() }
            m.timerFired()
            XCTAssertEqual(m.needFill(at: 7, stalledAt: nil, afterFailure: false), .startFill(isResume: true))
        }
        XCTAssertEqual(m.needFill(at: 7, stalledAt: nil, afterFailure: false), .giveUp("upstream failed 3 times at byte 7"))
    }

    func test_fillsThatBreakOffFewBytesOn_areRetriedAtOnce_untilTooManyInARow() {
        var m = ResumeStateMachine(maxAttempts: 4, maxThinFills: 3, minProgress: 1000)
        XCTAssertEqual(m.needFill(at: 0, stalledAt: nil, afterFailure: false), .startFill(isResume: false))
        XCTAssertEqual(m.needFill(at: 1, stalledAt: nil, afterFailure: true), .startFill(isResume: true), "from the byte reached, now")
        XCTAssertEqual(m.needFill(at: 2, stalledAt: nil, afterFailure: true), .startFill(isResume: true))
        XCTAssertEqual(m.thinFills, 2)
        XCTAssertEqual(m.needFill(at: 3, stalledAt: nil, afterFailure: true),
                       .giveUp("upstream broke off 3 times in a row with under 1000 bytes, at byte 3"),
                       "an origin that sends a byte and cuts is not asked once per byte")
    }

    func test_aThinFill_resetsTheFailuresAtOnePosition_asAnyProgressDoes() {
        var m = ResumeStateMachine(maxAttempts: 2, maxThinFills: 3, minProgress: 1000)
        _ = m.needFill(at: 0, stalledAt: nil, afterFailure: false)
        XCTAssertEqual(m.needFill(at: 0, stalledAt: nil, afterFailure: true), .retry(after: 0.1))
        m.timerFired()
        XCTAssertEqual(m.needFill(at: 0, stalledAt: nil, afterFailure: false), .startFill(isResume: true))
        XCTAssertEqual(m.needFill(at: 400, stalledAt: nil, afterFailure: true), .startFill(isResume: true))
        XCTAssertEqual(m.failures, 0)
        XCTAssertEqual(m.thinFills, 1)
        XCTAssertEqual(m.needFill(at: 400, stalledAt: nil, afterFailure: true), .retry(after: 0.1))
    }

    func test_aFillThatBroughtMinProgressBytes_endsTheRunOfThinOnes() {
        var m = ResumeStateMachine(maxAttempts: 4, maxThinFills: 2, minProgress: 1000)
        _ = m.needFill(at: 0, stalledAt: nil, afterFailure: false)
        XCTAssertEqual(m.needFill(at: 600, stalledAt: nil, afterFailure: true), .startFill(isResume: true))
        XCTAssertEqual(m.thinFills, 1)
        XCTAssertEqual(m.needFill(at: 1600, stalledAt: nil, afterFailure: true), .startFill(isResume: true), "1000 bytes from 600")
        XCTAssertEqual(m.thinFills, 0)
        XCTAssertEqual(m.needFill(at: 1700, stalledAt: nil, afterFailure: true), .startFill(isResume: true))
    }

    func test_aFillThatEndedWell_isNotThin_howeverFewBytesItBrought() {
        var m = ResumeStateMachine(maxAttempts: 2, maxThinFills: 2, minProgress: 1000)
        for p in [0, 10, 20, 30, 40] {
            XCTAssertEqual(m.needFill(at: p, stalledAt: nil, afterFailure: false), .startFill(isResume: false))
        }
        XCTAssertEqual(m.thinFills, 0)
    }

    func test_movingOn_resetsTheFailuresToo() {
        var m = ResumeStateMachine(maxAttempts: 2)
        _ = m.needFill(at: 0, stalledAt: nil, afterFailure: false)
        _ = m.needFill(at: 0, stalledAt: nil, afterFailure: false)
        XCTAssertEqual(m.needFill(at: 262_144, stalledAt: nil, afterFailure: false), .startFill(isResume: false))
        XCTAssertEqual(m.failures, 0)
    }

    func test_stalledOrigin_atThePosition_givesUpAtOnce() {
        var m = ResumeStateMachine(maxAttempts: 4)
        _ = m.needFill(at: 300, stalledAt: nil, afterFailure: false)
        XCTAssertEqual(m.needFill(at: 300, stalledAt: 300, afterFailure: false), .giveUp("upstream stalled at byte 300 for the stall timeout"))
    }

    func test_stall_elsewhere_orAtANewPosition_doesNotStopAFill() {
        var m = ResumeStateMachine(maxAttempts: 4)
        XCTAssertEqual(m.needFill(at: 300, stalledAt: 300, afterFailure: false), .startFill(isResume: false), "first ask: a new fill")
        XCTAssertEqual(m.needFill(at: 300, stalledAt: 900, afterFailure: false), .retry(after: 0.1))
        m.timerFired()
        XCTAssertEqual(m.needFill(at: 300, stalledAt: 100, afterFailure: false), .startFill(isResume: true), "a stall before this position is another fill's")
    }

    func test_timerFired_whileMovedOn_doesNotMakeANewPositionAResume() {
        var m = ResumeStateMachine(maxAttempts: 4)
        _ = m.needFill(at: 0, stalledAt: nil, afterFailure: false)
        _ = m.needFill(at: 0, stalledAt: nil, afterFailure: false)
        m.timerFired()
        XCTAssertEqual(m.needFill(at: 100, stalledAt: nil, afterFailure: false), .startFill(isResume: false))
    }
}
