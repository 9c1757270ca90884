/// When a response finds its next bytes missing and no fill that will bring them: start a fill
/// now, retry after a backoff, or give up. A value with no I/O; `CacheExchange` performs the
/// actions (starting fills, arming the timer, cutting the response off), and so does a response
/// that streams its uncached tail straight from the origin (`CacheExchange.streamDirect`).
///
/// The rule: a fill that failed without bringing a byte at the response's position is retried at
/// that first missing byte after 0.1 s, doubling, at most `maxAttempts - 1` times; progress resets
/// the count. An origin that stalled there (no byte for the stall timeout) is not retried: it
/// already had its chance, and each retry would cost another timeout.
package struct ResumeStateMachine: Equatable {
    /// Failed fills at one position before the response gives up.
    let maxAttempts: Int
    /// Where the last fill this response relied on was started, if any.
    private(set) var lastFillAt: Int?
    /// Consecutive fills at `lastFillAt` that brought no byte.
    private(set) var failures = 0
    private var timerPending = false
    private var retryDue = false

    package init(maxAttempts: Int) { self.maxAttempts = maxAttempts }

    package enum Action: Equatable {
        /// Start a fill at the position; `isResume` when it retries one that failed there.
        case startFill(isResume: Bool)
        /// Arm the retry timer; call `timerFired()` when it fires, then ask again.
        case retry(after: Double)
        /// A retry is already scheduled.
        case keepWaiting
        /// Cut the response off, with the reason.
        case giveUp(String)
    }

    /// The response needs bytes at `position` that no fill will bring. `stalledAt` is where the
    /// resource's last fill timed out, if it did.
    package mutating func needFill(at position: Int, stalledAt: Int?) -> Action {
        guard lastFillAt == position else {
            failures = 0
            retryDue = false
            lastFillAt = position
            return .startFill(isResume: false)
        }
        // Only a stall where this response waits: a fill elsewhere that stalled says nothing of this one.
        if let stalled = stalledAt, stalled == position { return .giveUp("upstream stalled at byte \(stalled) for the stall timeout") }
        if timerPending { return .keepWaiting }
        if retryDue {
            retryDue = false
            return .startFill(isResume: true)
        }
        failures += 1
        if failures >= maxAttempts { return .giveUp("upstream failed \(failures) times at byte \(position)") }
        timerPending = true
        return .retry(after: 0.1 * Double(1 << (failures - 1)))
    }

    /// The retry timer fired: the next `needFill` at the same position starts the fill.
    package mutating func timerFired() {
        timerPending = false
        retryDue = true
    }

    /// Bytes were sent: earlier failures no longer count.
    package mutating func progressed() { failures = 0 }
}
