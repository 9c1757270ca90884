/// When a player was last fed from the origin, across the event loops: downloads yield to
/// players ("served before downloads when the line is full"). A fill a player waits on stamps it
/// as bytes arrive; the download limiter (`RateLimiter(yieldingTo:)`) holds download fills that no
/// player reads while a stamp is recent, so on a line both would fill, the player gets it. While
/// no player fetches from upstream (everything watched is cached, or nobody watches), downloads run
/// at their caps. `download_yield: false` turns it off.
public final class PlayerActivity: @unchecked Sendable {
    private let state: Locked<(last: Double, enabled: Bool)>
    /// Seconds a stamp holds downloads back: longer than a player's gap between two chunks of a
    /// busy transfer, short enough that downloads resume soon after the player's fetch ends.
    public static let window = 0.5

    public init(enabled: Bool = true) { state = Locked((-Double.infinity, enabled)) }

    /// Downloads yield to players (the config's `download_yield`).
    public var enabled: Bool {
        get { state.withLock { $0.enabled } }
        set { state.withLock { $0.enabled = newValue } }
    }

    /// A player's fill received bytes at `now` (monotonic seconds).
    public func fed(now: Double) { state.withLock { $0.last = Swift.max($0.last, now) } }

    /// Seconds a download fill waits (0: it may go now).
    public func holdBack(now: Double) -> Double {
        state.withLock { s in
            guard s.enabled else { return 0 }
            let left = s.last + PlayerActivity.window - now
            return left > 0 ? Swift.max(left, 0.05) : 0
        }
    }
}
