import EddyCore

/// What a finished response reports for the metrics and the access log.
struct ExchangeOutcome {
    var cacheStatus: CacheStatus
    /// Body bytes sent from the cache and from the origin.
    var fromCache: Int
    var fromOrigin: Int
    /// When the request arrived (monotonic seconds).
    var startedAt: Double
    /// The cache key the response was served under; nil when it was not cached at all.
    var cacheKey: String? = nil
    /// When the origin's head reached eddy for this response (monotonic seconds); nil when the
    /// origin was not asked.
    var upstreamHeadAt: Double? = nil
    /// True when the body was sent from memory (the memory tier's bytes), not from a file.
    var fromMemory = false
}
