/// Retry-After (RFC 9110 section 10.2.3): how long an origin asks a client to wait, after a 503
/// or a 429 (RFC 6585 section 4). Either delay-seconds or an HTTP-date.
public enum RetryAfter {
    /// Seconds to wait from `now` (epoch seconds), nil when absent or malformed. A date in the
    /// past is 0; delay-seconds too large for an Int are Int.max (the caller caps the wait).
    public static func seconds(_ value: String?, now: Int) -> Double? {
        guard let raw = value else { return nil }
        let v = raw.trimmingOWS()
        if let n = RangeHeader.parseDigits(v) { return Double(n) }
        guard let date = HTTPDate.parse(String(v), now: now) else { return nil }
        return Double(Swift.max(0, date - now))
    }
}
