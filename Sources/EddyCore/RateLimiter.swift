/// A `TokenBucket` shared by the event loops (a download's fills run on its resources' homes):
/// one lock around the value. `download_rate_limit` is one of these for all downloads together,
/// and each job with `--rate` has its own.
public final class RateLimiter: @unchecked Sendable {
    private let bucket: Locked<TokenBucket>
    /// Players it gives way to (the engine's limiter for all downloads; see `PlayerActivity`).
    private let players: PlayerActivity?

    public init(rate: Int, yieldingTo players: PlayerActivity? = nil) {
        bucket = Locked(TokenBucket(rate: rate))
        self.players = players
    }

    /// Bytes per second; 0 is no limit.
    public var rate: Int { bucket.withLock { $0.rate } }

    /// Changes the rate live (SIGHUP, `PATCH /api/downloads/{id}`).
    public func setRate(_ rate: Int, now: Double) { bucket.withLock { $0.setRate(rate, now: now) } }

    /// 0 when `count` bytes may go now (they are taken), else the seconds to wait.
    public func admit(_ count: Int, now: Double) -> Double { bucket.withLock { $0.admit(count, now: now) } }

    /// Seconds until bytes may go (0: now); nothing is taken.
    public func wait(now: Double) -> Double {
        Swift.max(bucket.withLock { $0.wait(now: now) }, players?.holdBack(now: now) ?? 0)
    }

    /// Takes `count` bytes that went.
    public func take(_ count: Int) { bucket.withLock { $0.take(count) } }
}
