import EddyCache
import EddyCore

/// `GET /api/cache`: the cache's size against its limit, pinned bytes, and how well it served:
/// hit ratio and origin bytes saved over the last 5 minutes, hour and day, and the last hour
/// minute by minute (the dashboard's chart).
package struct CacheStatsInfo: Encodable {
    var bytes: Int
    var pinnedBytes: Int
    var maxBytes: Int
    var windows: [String: Window]
    var series: [Minute]
    /// The proxy listener as the asking browser reaches it (the player page plays through it).
    var proxyURL: String?

    /// One window's sums. `origin_bytes_saved` is what the cache sent in the origin's place.
    struct Window: Encodable {
        var requests, hits, bytesServed, originBytesSaved: Int
        var hitRatio, byteHitRatio: Double

        init(_ c: RollingStats.Counts) {
            (requests, hits, bytesServed, originBytesSaved) = (c.requests, c.hits, c.bytesServed, c.bytesFromCache)
            hitRatio = (c.hitRatio * 10_000).rounded() / 10_000
            byteHitRatio = (c.byteHitRatio * 10_000).rounded() / 10_000
        }

        enum CodingKeys: String, CodingKey {
            case requests, hits
            case bytesServed = "bytes_served", originBytesSaved = "origin_bytes_saved"
            case hitRatio = "hit_ratio", byteHitRatio = "byte_hit_ratio"
        }
    }

    /// One minute of the chart; `time` is its start (Unix seconds).
    struct Minute: Encodable {
        var time, requests, hits, bytesServed, bytesFromCache: Int

        enum CodingKeys: String, CodingKey {
            case time, requests, hits
            case bytesServed = "bytes_served", bytesFromCache = "bytes_from_cache"
        }
    }

    enum CodingKeys: String, CodingKey {
        case bytes, windows, series
        case pinnedBytes = "pinned_bytes", maxBytes = "max_bytes", proxyURL = "proxy_url"
    }

    package init(cache: any Cache, stats: RollingStats, now: Int, proxyURL: String? = nil) {
        self.proxyURL = proxyURL
        bytes = cache.totalBytes
        pinnedBytes = cache.pinnedBytes
        maxBytes = cache.budget
        windows = ["5m": Window(stats.totals(seconds: 300, now: now)), "1h": Window(stats.totals(seconds: 3600, now: now)),
                   "24h": Window(stats.totals(seconds: 86_400, now: now))]
        series = stats.series(minutes: 60, now: now).map {
            Minute(time: $0.minute * 60, requests: $0.requests, hits: $0.hits, bytesServed: $0.bytesServed, bytesFromCache: $0.bytesFromCache)
        }
    }
}
