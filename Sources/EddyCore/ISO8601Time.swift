/// Times as ISO 8601 / RFC 3339 UTC timestamps (`2026-11-21T10:00:00Z`), for JSON fields and
/// logs.
///
/// Hand-written like `HTTPDate`: Foundation's `ISO8601DateFormatter` loads the time-zone database
/// from disk on its first use, which cost a download's first request log entry 5 ms on the main
/// loop of every new process (strace: two zoneinfo reads between a job's master playlist and its
/// media playlists' requests).
public enum ISO8601Time {
    /// Formats `seconds` since the Unix epoch as `YYYY-MM-DDThh:mm:ssZ` (RFC 3339 section 5.6,
    /// `date-time` with the `Z` offset). Years outside 0...9999 are written as they are.
    public static func format(_ seconds: Int) -> String {
        let days = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400
        let secs = seconds - days * 86400
        let (y, m, d) = HTTPDate.civil(fromDays: days)
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let year = (0..<1000).contains(y) ? String(repeating: "0", count: 4 - "\(y)".count) + "\(y)" : "\(y)"
        return "\(year)-\(two(m))-\(two(d))T\(two(secs / 3600)):\(two(secs / 60 % 60)):\(two(secs % 60))Z"
    }
}
