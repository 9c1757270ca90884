/// A download job's life as a value (swift-nio's style, like the coordinator's machines): events
/// in, the state and an action out; the download engine performs the actions. No I/O, no clock: the
/// caller passes the time and the jitter.
public struct DownloadJobStateMachine: Equatable, Sendable {
    public enum Action: Equatable, Sendable {
        case none
        /// Start (or go on) fetching the job's missing segments.
        case fetch
        /// Stop every request of the job in flight.
        case stopFetching
        /// Fetch again at `at` (seconds on the caller's clock).
        case retry(at: Double)
        /// The job is complete: pin what it stored, tell listeners.
        case complete
    }

    public private(set) var state: DownloadState
    /// Why the job failed: the segment and the last error.
    public private(set) var failure: String?
    /// Why a job waits for space: what it needs and what is free.
    public private(set) var reason: String?
    /// When a job waiting for the origin fetches again.
    public private(set) var retryAt: Double?
    /// Until when the origin asked not to be asked (Retry-After, RFC 9110 section 10.2.3): it
    /// speaks for the origin, not one segment, so no request of the job goes before, not even
    /// after another request's success.
    public private(set) var holdUntil: Double?
    public let retries: Int
    public let backoff = RetryBackoff()

    /// A new job is queued; a job read back after a restart starts where it was, except that a
    /// running or waiting one is queued again (its requests died with the process).
    public init(restoring state: DownloadState = .queued, failure: String? = nil, reason: String? = nil, retries: Int = 10) {
        self.state = state.holdsSlot ? .queued : state
        self.failure = failure
        self.reason = state == .waitingForSpace ? reason : nil
        self.retries = Swift.max(1, retries)
    }

    /// A parallel-download slot is free for this queued job.
    public mutating func slotGranted() -> Action {
        guard state == .queued else { return .none }
        state = .running
        return .fetch
    }

    public mutating func pause() -> Action {
        switch state {
        case .queued, .waitingForSpace, .scheduled:
            state = .paused
            reason = nil
            return .none
        case .running, .waitingForOrigin:
            state = .paused
            retryAt = nil
            holdUntil = nil
            return .stopFetching
        default: return .none
        }
    }

    /// A paused job, or a failed one (the user retries it), queues again.
    public mutating func resume() -> Action {
        guard state == .paused || state == .failed else { return .none }
        state = .queued
        failure = nil
        return .none
    }

    public mutating func cancel() -> Action {
        guard !state.isTerminal || state == .failed || state == .expired else { return .none }
        let wasFetching = state.holdsSlot
        state = .cancelled
        retryAt = nil
        holdUntil = nil
        return wasFetching ? .stopFetching : .none
    }

    /// A segment's bytes are all stored: the origin answers again, and the job goes on at once
    /// (the failed segment keeps its own backoff), unless the origin asked for a pause.
    public mutating func segmentSucceeded(now: Double) -> Action {
        guard state == .waitingForOrigin else { return .none }
        if let h = holdUntil, now < h { return .none }
        holdUntil = nil
        state = .running
        retryAt = nil
        return .fetch
    }

    /// A request for `segment` failed for the `consecutive`-th time in a row. Below the limit the
    /// job waits for the origin (if not already waiting for a later time); at it, the job fails
    /// and names the segment: never a silent hole.
    public mutating func segmentFailed(_ segment: String, reason: String, consecutive: Int, retryAfter: Double?,
                                       now: Double, jitter: Double) -> Action {
        guard state == .running || state == .waitingForOrigin else { return .none }
        if consecutive >= retries {
            state = .failed
            failure = "\(segment): \(reason) (\(consecutive) attempts)"
            retryAt = nil
            holdUntil = nil
            return .stopFetching
        }
        let at = now + backoff.delay(failures: consecutive, retryAfter: retryAfter, jitter: jitter)
        if retryAfter != nil { holdUntil = Swift.max(holdUntil ?? at, at) }
        state = .waitingForOrigin
        if let r = retryAt, r >= at { return .none }
        retryAt = at
        return .retry(at: at)
    }

    /// The backoff is over.
    public mutating func retryDue(now: Double) -> Action {
        guard state == .waitingForOrigin, let r = retryAt, now >= r else { return .none }
        state = .running
        retryAt = nil
        holdUntil = nil
        return .fetch
    }

    /// The job's plan does not fit beside the pinned downloads: it stops and waits, saying why.
    public mutating func noSpace(_ why: String) -> Action {
        guard state == .running || state == .waitingForOrigin || state == .queued else { return .none }
        let wasFetching = state.holdsSlot
        state = .waitingForSpace
        reason = why
        retryAt = nil
        holdUntil = nil
        return wasFetching ? .stopFetching : .none
    }

    /// Space may have been freed (a download deleted or expired): a waiting job queues again and
    /// is measured anew when it gets a slot.
    public mutating func spaceFreed() -> Action {
        guard state == .waitingForSpace else { return .none }
        state = .queued
        reason = nil
        return .none
    }

    /// More renditions were asked for (`PATCH`): a completed or failed job queues again to fetch
    /// them; a running one fetches on with its new plan; others are unchanged and pick the new
    /// plan up when they run.
    public mutating func extended() -> Action {
        switch state {
        case .completed, .failed:
            state = .queued
            failure = nil
            return .none
        case .running, .waitingForOrigin:
            state = .running
            retryAt = nil
            holdUntil = nil
            return .fetch
        default: return .none
        }
    }

    /// A stored unit's bytes were lost (the origin sent a new representation, which replaced the
    /// pinned copy): a completed job queues again to fetch it; a running one fetches it as it
    /// goes; a paused or failed one picks it up when it runs.
    public mutating func unitLost() -> Action {
        guard state == .completed else { return .none }
        state = .queued
        return .none
    }

    /// The job's `expires` has passed: it is released (unpinned), whatever it was doing.
    public mutating func expire() -> Action {
        guard state.holdsPins else { return .none }
        let wasFetching = state.holdsSlot
        state = .expired
        retryAt = nil
        holdUntil = nil
        reason = nil
        return wasFetching ? .stopFetching : .none
    }

    /// The job's download window is closed (or not open yet): a queued job waits in `scheduled`
    /// without a slot; a running one stops its requests cleanly (every confirmed block is kept)
    /// and waits too. Paused, failed and finished jobs are left as they are.
    public mutating func windowClosed() -> Action {
        guard state == .queued || state.holdsSlot else { return .none }
        let wasFetching = state.holdsSlot
        state = .scheduled
        retryAt = nil
        holdUntil = nil
        return wasFetching ? .stopFetching : .none
    }

    /// The window opened: a scheduled job queues for a slot.
    public mutating func windowOpened() -> Action {
        guard state == .scheduled else { return .none }
        state = .queued
        return .none
    }

    /// Every selected segment is stored.
    public mutating func allStored() -> Action {
        guard state == .running || state == .waitingForOrigin else { return .none }
        state = .completed
        retryAt = nil
        holdUntil = nil
        return .complete
    }
}
