/// Requests, hits and bytes per minute over the last 24 hours, as a value: the admin API's hit
/// ratio and origin bytes saved over 5 minutes, an hour and a day, and the dashboard's chart. A
/// ring of 1,440 one-minute buckets; a bucket is reused when its minute comes round again.
public struct RollingStats: Equatable, Sendable {
    /// One minute's counts (or a window's sums).
    public struct Counts: Equatable, Sendable {
        /// Minutes since the Unix epoch (for a bucket; 0 for sums).
        public var minute = 0
        /// Responses that could be served from the cache, and those served wholly from it.
        public var requests = 0
        public var hits = 0
        /// Body bytes sent to clients, and those of them read from the cache (the origin was spared them).
        public var bytesServed = 0
        public var bytesFromCache = 0

        public init() {}

        /// hits / requests; 0 without requests.
        public var hitRatio: Double { requests > 0 ? Double(hits) / Double(requests) : 0 }
        /// bytesFromCache / bytesServed; 0 without bytes.
        public var byteHitRatio: Double { bytesServed > 0 ? Double(bytesFromCache) / Double(bytesServed) : 0 }
    }

    public static let minutes = 1440
    private var ring: [Counts]

    public init() { ring = Array(repeating: Counts(), count: RollingStats.minutes) }

    /// Counts one response finished at `now` (Unix seconds).
    public mutating func record(now: Int, hit: Bool, bytesServed: Int, bytesFromCache: Int) {
        let m = now / 60
        let i = m % RollingStats.minutes
        if ring[i].minute != m {
            ring[i] = Counts()
            ring[i].minute = m
        }
        ring[i].requests += 1
        if hit { ring[i].hits += 1 }
        ring[i].bytesServed += bytesServed
        ring[i].bytesFromCache += bytesFromCache
    }

    /// Sums over the last `seconds` (whole minutes, the current one included) before `now`.
    public func totals(seconds: Int, now: Int) -> Counts {
        var out = Counts()
        for c in series(minutes: Swift.max(1, (seconds + 59) / 60), now: now) {
            out.requests += c.requests
            out.hits += c.hits
            out.bytesServed += c.bytesServed
            out.bytesFromCache += c.bytesFromCache
        }
        return out
    }

    /// The last `minutes` buckets, oldest first, one per minute (empty minutes as zeros).
    public func series(minutes: Int, now: Int) -> [Counts] {
        let n = Swift.min(Swift.max(minutes, 1), RollingStats.minutes)
        let m = now / 60
        return ((m - n + 1)...m).map { minute in
            let c = ring[((minute % RollingStats.minutes) + RollingStats.minutes) % RollingStats.minutes]
            if c.minute == minute { return c }
            var empty = Counts()
            empty.minute = minute
            return empty
        }
    }
}
