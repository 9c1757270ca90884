import XCTest
@testable import EddyDownloads

/// The states issue 13 added to a download job: waiting for space, expired, extended.
final class DownloadJobSpaceTests: XCTestCase {
    func test_noSpace_stopsARunningJob_andSpaceFreedQueuesItAgain() {
        var m = DownloadJobStateMachine()
        XCTAssertEqual(m.slotGranted(), .fetch)
        XCTAssertEqual(m.noSpace("needs 2 MiB"), .stopFetching)
        XCTAssertEqual(m.state, .waitingForSpace)
        XCTAssertEqual(m.reason, "needs 2 MiB")
        XCTAssertFalse(m.state.holdsSlot, "a job waiting for space leaves its slot to others")
        XCTAssertEqual(m.slotGranted(), .none)
        XCTAssertEqual(m.spaceFreed(), .none)
        XCTAssertEqual(m.state, .queued)
        XCTAssertNil(m.reason)
        XCTAssertEqual(m.spaceFreed(), .none)
        XCTAssertEqual(m.state, .queued)
    }

    func test_aQueuedJobMeasuredBeforeItRuns_waitsWithoutStopping_andCanBePausedOrCancelled() {
        var m = DownloadJobStateMachine()
        XCTAssertEqual(m.noSpace("x"), .none)
        XCTAssertEqual(m.pause(), .none)
        XCTAssertEqual(m.state, .paused)
        XCTAssertNil(m.reason)
        var n = DownloadJobStateMachine()
        _ = n.noSpace("x")
        XCTAssertEqual(n.cancel(), .none)
        XCTAssertEqual(n.state, .cancelled)
    }

    func test_restoredWaitingForSpace_keepsItsReason() {
        let m = DownloadJobStateMachine(restoring: .waitingForSpace, reason: "needs 1 MiB")
        XCTAssertEqual(m.state, .waitingForSpace)
        XCTAssertEqual(m.reason, "needs 1 MiB")
    }

    func test_expire_fromAnyLiveState_andNeverAgain() {
        var running = DownloadJobStateMachine()
        _ = running.slotGranted()
        XCTAssertEqual(running.expire(), .stopFetching)
        XCTAssertEqual(running.state, .expired)
        XCTAssertEqual(running.expire(), .none)
        XCTAssertEqual(running.resume(), .none, "an expired download does not come back")
        XCTAssertEqual(running.extended(), .none)
        XCTAssertTrue(running.state.isTerminal)
        XCTAssertEqual(running.cancel(), .none)
        XCTAssertEqual(running.state, .cancelled, "an expired download can still be deleted")
        var done = DownloadJobStateMachine(restoring: .completed)
        XCTAssertEqual(done.expire(), .none)
        XCTAssertEqual(done.state, .expired)
        var cancelled = DownloadJobStateMachine(restoring: .cancelled)
        XCTAssertEqual(cancelled.expire(), .none)
        XCTAssertEqual(cancelled.state, .cancelled)
    }

    func test_extended_queuesACompletedOrFailedJob_andKeepsARunningOneFetching() {
        var done = DownloadJobStateMachine(restoring: .completed)
        XCTAssertEqual(done.extended(), .none)
        XCTAssertEqual(done.state, .queued)
        var failed = DownloadJobStateMachine(restoring: .failed, failure: "seg1: 404")
        XCTAssertEqual(failed.extended(), .none)
        XCTAssertEqual(failed.state, .queued)
        XCTAssertNil(failed.failure)
        var waiting = DownloadJobStateMachine()
        _ = waiting.slotGranted()
        _ = waiting.segmentFailed("s", reason: "503", consecutive: 1, retryAfter: nil, now: 0, jitter: 0)
        XCTAssertEqual(waiting.extended(), .fetch)
        XCTAssertEqual(waiting.state, .running)
        var paused = DownloadJobStateMachine(restoring: .paused)
        XCTAssertEqual(paused.extended(), .none)
        XCTAssertEqual(paused.state, .paused)
    }
}
