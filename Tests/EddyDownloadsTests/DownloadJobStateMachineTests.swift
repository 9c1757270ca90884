import XCTest
@testable import EddyDownloads

/// A download job's life, its retry backoff and its fetch window, as values.
final class DownloadJobStateMachineTests: XCTestCase {
    private func running(retries: Int = 10) -> DownloadJobStateMachine {
        var m = DownloadJobStateMachine(retries: retries)
        XCTAssertEqual(m.slotGranted(), .fetch)
        return m
    }

    func test_queuedRunsWhenGrantedASlot_thenCompletes() {
        var m = DownloadJobStateMachine()
        XCTAssertEqual(m.state, .queued)
        XCTAssertEqual(m.allStored(), .none, "a queued job is not complete")
        XCTAssertEqual(m.slotGranted(), .fetch)
        XCTAssertEqual(m.slotGranted(), .none)
        XCTAssertEqual(m.allStored(), .complete)
        XCTAssertEqual(m.state, .completed)
        XCTAssertEqual(m.pause(), .none)
        XCTAssertEqual(m.cancel(), .none)
        XCTAssertEqual(m.state, .completed)
    }

    func test_aLostUnitQueuesACompletedJobAgain_andNothingElse() {
        var m = running()
        XCTAssertEqual(m.unitLost(), .none)
        XCTAssertEqual(m.state, .running, "a running job fetches it as it goes")
        XCTAssertEqual(m.allStored(), .complete)
        XCTAssertEqual(m.unitLost(), .none)
        XCTAssertEqual(m.state, .queued, "a completed job goes back to the queue")
        XCTAssertEqual(m.slotGranted(), .fetch)
        XCTAssertEqual(m.pause(), .stopFetching)
        XCTAssertEqual(m.unitLost(), .none)
        XCTAssertEqual(m.state, .paused, "a paused job stays paused")
    }

    func test_failuresWaitForTheOrigin_thenRetry_andASuccessEndsTheWait() {
        var m = running()
        XCTAssertEqual(m.segmentFailed("s1", reason: "503", consecutive: 1, retryAfter: nil, now: 100, jitter: 0), .retry(at: 100.5))
        XCTAssertEqual(m.state, .waitingForOrigin)
        XCTAssertEqual(m.retryDue(now: 100.4), .none)
        XCTAssertEqual(m.retryDue(now: 100.5), .fetch)
        XCTAssertEqual(m.state, .running)
        _ = m.segmentFailed("s1", reason: "503", consecutive: 2, retryAfter: nil, now: 200, jitter: 0.999)
        XCTAssertEqual(m.segmentSucceeded(now: 201), .fetch, "another request's success ends the wait")
        XCTAssertEqual(m.state, .running)
    }

    func test_retryAfterHoldsTheJob_evenWhenAnotherRequestSucceeds() {
        var m = running()
        XCTAssertEqual(m.segmentFailed("s1", reason: "503", consecutive: 1, retryAfter: 5, now: 100, jitter: 0), .retry(at: 105))
        XCTAssertEqual(m.holdUntil, 105)
        XCTAssertEqual(m.segmentSucceeded(now: 101), .none, "the origin asked for 5 s")
        XCTAssertEqual(m.state, .waitingForOrigin)
        XCTAssertEqual(m.retryDue(now: 105), .fetch)
        XCTAssertNil(m.holdUntil)
        _ = m.segmentFailed("s2", reason: "429", consecutive: 1, retryAfter: 2, now: 200, jitter: 0)
        XCTAssertEqual(m.segmentSucceeded(now: 202), .fetch, "after the hold, a success ends the wait")
        _ = m.segmentFailed("s3", reason: "429", consecutive: 1, retryAfter: 2, now: 300, jitter: 0)
        XCTAssertEqual(m.pause(), .stopFetching)
        XCTAssertNil(m.holdUntil, "pausing forgets the hold; resuming asks again")
    }

    func test_aLaterFailureDoesNotBringTheRetryForward_butRetryAfterIsHonoured() {
        var m = running()
        XCTAssertEqual(m.segmentFailed("a", reason: "reset", consecutive: 5, retryAfter: nil, now: 0, jitter: 0), .retry(at: 8))
        XCTAssertEqual(m.segmentFailed("b", reason: "reset", consecutive: 1, retryAfter: nil, now: 1, jitter: 0), .none)
        XCTAssertEqual(m.retryAt, 8)
        XCTAssertEqual(m.segmentFailed("c", reason: "429", consecutive: 1, retryAfter: 30, now: 2, jitter: 0), .retry(at: 32))
    }

    func test_theLimitFailsTheJob_namingTheSegment_andResumeRetriesIt() {
        var m = running(retries: 3)
        _ = m.segmentFailed("v/7.m4s", reason: "HTTP 500", consecutive: 2, retryAfter: nil, now: 0, jitter: 0)
        XCTAssertEqual(m.segmentFailed("v/7.m4s", reason: "HTTP 500", consecutive: 3, retryAfter: nil, now: 9, jitter: 0), .stopFetching)
        XCTAssertEqual(m.state, .failed)
        XCTAssertEqual(m.failure, "v/7.m4s: HTTP 500 (3 attempts)")
        XCTAssertEqual(m.retryDue(now: 100), .none)
        XCTAssertEqual(m.resume(), .none)
        XCTAssertEqual(m.state, .queued)
        XCTAssertNil(m.failure)
    }

    func test_pauseStopsRequests_resumeQueues_cancelFromAnyLiveState() {
        var m = running()
        XCTAssertEqual(m.pause(), .stopFetching)
        XCTAssertEqual(m.state, .paused)
        XCTAssertEqual(m.slotGranted(), .none, "a paused job takes no slot")
        XCTAssertEqual(m.segmentFailed("x", reason: "late", consecutive: 1, retryAfter: nil, now: 0, jitter: 0), .none)
        XCTAssertEqual(m.resume(), .none)
        XCTAssertEqual(m.state, .queued)
        XCTAssertEqual(m.cancel(), .none)
        XCTAssertEqual(m.state, .cancelled)
        var w = running()
        _ = w.segmentFailed("x", reason: "reset", consecutive: 1, retryAfter: nil, now: 0, jitter: 0)
        XCTAssertEqual(w.cancel(), .stopFetching)
        XCTAssertNil(w.retryAt)
    }

    func test_restoredAfterARestart_aRunningJobIsQueuedAgain() {
        XCTAssertEqual(DownloadJobStateMachine(restoring: .running).state, .queued)
        XCTAssertEqual(DownloadJobStateMachine(restoring: .waitingForOrigin).state, .queued)
        XCTAssertEqual(DownloadJobStateMachine(restoring: .paused).state, .paused)
        XCTAssertEqual(DownloadJobStateMachine(restoring: .failed, failure: "s: x").failure, "s: x")
    }

    func test_backoff_isCappedExponentialWithJitter() {
        let b = RetryBackoff(base: 1, cap: 60)
        XCTAssertEqual(b.delay(failures: 1, retryAfter: nil, jitter: 0), 0.5)
        XCTAssertEqual(b.delay(failures: 1, retryAfter: nil, jitter: 1), 1)
        XCTAssertEqual(b.delay(failures: 4, retryAfter: nil, jitter: 0.5), 6)
        XCTAssertEqual(b.delay(failures: 1000, retryAfter: nil, jitter: 1), 60, "capped, and no overflow")
        XCTAssertEqual(b.delay(failures: 3, retryAfter: 7, jitter: 0.3), 7)
        XCTAssertEqual(b.delay(failures: 3, retryAfter: 1e12, jitter: 0), 3600, "a hostile Retry-After is cut")
        XCTAssertEqual(b.delay(failures: 1, retryAfter: -.infinity, jitter: 0), 0.5)
    }

    func test_window_halvesOn429And503_andGrowsBackByOne() {
        var w = FetchWindow(limit: 8)
        w.answered(503)
        XCTAssertEqual(w.size, 4)
        w.answered(429)
        w.answered(429)
        w.answered(429)
        XCTAssertEqual(w.size, 1, "never below one")
        w.answered(nil)
        w.answered(500)
        XCTAssertEqual(w.size, 1, "other failures say nothing about load")
        w.answered(200)
        XCTAssertEqual(w.size, 2)
        for _ in 0..<2 { w.answered(206) }
        XCTAssertEqual(w.size, 3)
        for _ in 0..<100 { w.answered(200) }
        XCTAssertEqual(w.size, 8, "up to the limit, not beyond")
        XCTAssertEqual(FetchWindow(limit: 0).size, 1)
    }
}
