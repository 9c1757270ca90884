/// When a response finds its next bytes missing and no fill that will bring them: start a fill
/// now, retry after a backoff, or give up. A value with no I/O; `CacheExchange` performs the
/// actions (starting fills, arming the timer, cutting the response off), and so does a response
/// that streams its uncached tail straight from the origin (`CacheExchange.streamDirect`).
///
/// The rules:
/// - A fill that failed without bringing a byte at the response's position is retried at that
///   first missing byte after 0.1 s, doubling, `maxAttempts` times in all; an origin that stalled
///   there (no byte for the stall timeout) is not retried: it already had its chance, and each
///   retry would cost another timeout.
/// - A fill that broke off after bringing some bytes is tried again at once from the byte reached
///   (a flaky link loses nothing). But `maxThinFills` such fills in a row that each brought fewer
///   than `minProgress` bytes and the response gives up: an origin that sends a few bytes and
///   cuts every transfer is not asked once per few bytes (21,000 times for 20 MiB at 1,000).
package struct ResumeStateMachine: Equatable {
    /// Fills in a row that brought no byte before the response gives up.
    let maxAttempts: Int
    /// Fills in a row that broke off with fewer than `minProgress` bytes before it gives up.
    let maxThinFills: Int
    /// Bytes a fill that broke off must bring not to count as thin.
    let minProgress: Int
    /// Where the last fill this response relied on was started, if any.
    private(set) var lastFillAt: Int?
    /// Fills in a row at `lastFillAt` that brought no byte.
    private(set) var failures = 0
    /// Fills in a row that broke off with fewer than `minProgress` bytes.
    private(set) var thinFills = 0
    private var timerPending = false
    private var retryDue = false

    package init(maxAttempts: Int, maxThinFills: Int = 16, minProgress: Int = 16 * 1024) {
        self.maxAttempts = maxAttempts
        self.maxThinFills = maxThinFills
        self.minProgress = minProgress
    }

    package enum Action: Equatable {
        /// Start a fill at the position; `isResume` when it retries one that failed.
        case startFill(isResume: Bool)
        /// Arm the retry timer; call `timerFired()` when it fires, then ask again.
        case retry(after: Double)
        /// A retry is already scheduled.
        case keepWaiting
        /// Cut the response off, with the reason.
        case giveUp(String)
    }

    /// The response needs bytes at `position` that no fill will bring. `stalledAt` is where the
    /// resource's last fill timed out, if it did; `afterFailure` whether a fill failed since the
    /// response last asked (one that ended well is no failure, however few bytes it brought).
    package mutating func needFill(at position: Int, stalledAt: Int?, afterFailure: Bool) -> Action {
        if lastFillAt != position {
            if afterFailure, let last = lastFillAt, position > last, position - last < minProgress {
                thinFills += 1
                if thinFills >= maxThinFills {
                    return .giveUp("upstream broke off \(thinFills) times in a row with under \(minProgress) bytes, at byte \(position)")
                }
            } else {
                thinFills = 0
            }
            failures = 0
            retryDue = false
            lastFillAt = position
            return .startFill(isResume: afterFailure)
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
}
