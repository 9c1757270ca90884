import XCTest
@testable import EddyProxy

/// A graceful stop: drain until idle or the grace period ends; a second signal stops at once.
final class DrainStateMachineTests: XCTestCase {
    func test_firstSignalDrains_untilTheLoopsAreIdle() {
        var m = DrainStateMachine(grace: 30)
        XCTAssertFalse(m.isDraining)
        XCTAssertEqual(m.counted(idle: true), .none, "idle loops do not stop a proxy that serves")
        XCTAssertEqual(m.signalled(now: 100), .startDraining)
        XCTAssertTrue(m.isDraining)
        XCTAssertEqual(m.state, .draining(deadline: 130))
        XCTAssertEqual(m.polled(now: 101), .none)
        XCTAssertEqual(m.counted(idle: false), .none, "a response is still in flight")
        XCTAssertEqual(m.counted(idle: true), .stop)
        XCTAssertEqual(m.state, .stopped)
        XCTAssertEqual(m.counted(idle: true), .none, "a late answer stops nothing twice")
    }

    func test_theDeadlineHolds_evenIfNoLoopAnswers() {
        var m = DrainStateMachine(grace: 30)
        _ = m.signalled(now: 0)
        XCTAssertEqual(m.polled(now: 30), .none, "at the deadline, not past it")
        XCTAssertEqual(m.polled(now: 30.05), .stop)
        XCTAssertEqual(m.polled(now: 31), .none)
        XCTAssertTrue(m.isDraining)
    }

    func test_aSecondSignalStopsAtOnce_andAThirdDoesNothing() {
        var m = DrainStateMachine()
        XCTAssertEqual(m.signalled(now: 5), .startDraining)
        XCTAssertEqual(m.signalled(now: 6), .stop)
        XCTAssertEqual(m.signalled(now: 7), .none)
        XCTAssertEqual(m.state, .stopped)
    }
}
