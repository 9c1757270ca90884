/// How long a download waits before fetching again after the origin failed: capped exponential
/// backoff with jitter (so that many jobs behind one origin do not retry in step), or the
/// origin's own Retry-After (RFC 9110 section 10.2.3) when it gives one, within `maxRetryAfter`.
public struct RetryBackoff: Equatable, Sendable {
    public var base: Double = 1
    public var cap: Double = 60
    /// A Retry-After beyond this (a misconfigured or hostile origin) is cut to it.
    public var maxRetryAfter: Double = 3600

    public init(base: Double = 1, cap: Double = 60, maxRetryAfter: Double = 3600) {
        self.base = base
        self.cap = cap
        self.maxRetryAfter = maxRetryAfter
    }

    /// The delay before attempt `failures + 1`, `failures` >= 1 being the consecutive failures so
    /// far; `jitter` in [0, 1) spreads it over the upper half of the exponential step.
    public func delay(failures: Int, retryAfter: Double?, jitter: Double) -> Double {
        if let r = retryAfter, r.isFinite, r >= 0 { return Swift.min(r, maxRetryAfter) }
        let exponent = Swift.min(Swift.max(failures - 1, 0), 30)
        let step = Swift.min(cap, base * Double(1 << exponent))
        let j = Swift.min(Swift.max(jitter, 0), 1)
        return step / 2 + step / 2 * j
    }
}
