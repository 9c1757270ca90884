/// A token bucket for a byte rate (RFC 2697's single-rate idea, with debt): `rate` bytes a second
/// flow in, up to `burst`; a chunk is admitted whenever the bucket is not empty, and may take it
/// below zero, so a chunk is never split or held back for its own size; the next waits until the
/// debt is paid. Over any long stretch the bytes admitted are `rate` per second plus one burst.
/// Pure: the caller passes the time (monotonic seconds).
public struct TokenBucket: Equatable, Sendable {
    /// Bytes per second; 0 is no limit.
    public private(set) var rate: Int
    private var tokens: Double
    private var last: Double?

    public init(rate: Int) {
        self.rate = max(0, rate)
        tokens = Double(TokenBucket.burst(for: self.rate))
    }

    /// What the bucket holds at most: a quarter of a second, at least 16 KiB (one of curl's reads).
    static func burst(for rate: Int) -> Int { max(rate / 4, 16 << 10) }

    /// Changes the rate from now on (what was admitted stays admitted; a debt is kept).
    public mutating func setRate(_ newRate: Int, now: Double) {
        refill(now)
        rate = max(0, newRate)
        tokens = min(tokens, Double(TokenBucket.burst(for: rate)))
    }

    /// Admits `count` bytes at `now` and returns 0, or returns the seconds to wait before asking
    /// again (nothing is taken then).
    public mutating func admit(_ count: Int, now: Double) -> Double {
        let w = wait(now: now)
        if w == 0 { take(count) }
        return w
    }

    /// Seconds until the bucket is not empty (0: now).
    public mutating func wait(now: Double) -> Double {
        guard rate > 0 else { return 0 }
        refill(now)
        return tokens > 0 ? 0 : (-tokens + 1) / Double(rate)
    }

    /// Takes `count` bytes, into debt if need be.
    public mutating func take(_ count: Int) {
        if rate > 0 { tokens -= Double(count) }
    }

    private mutating func refill(_ now: Double) {
        defer { last = now }
        guard let last, now > last, rate > 0 else { return }
        tokens = min(Double(TokenBucket.burst(for: rate)), tokens + (now - last) * Double(rate))
    }
}
