import EddyCore

/// What a finished response reports for the metrics and the access log.
package struct ExchangeOutcome {
    package var cacheStatus: CacheStatus
    /// Body bytes sent from the cache and from the origin.
    package var fromCache: Int
    package var fromOrigin: Int
    /// When the request arrived (monotonic seconds).
    package var startedAt: Double
    /// The cache key the response was served under; nil when it was not cached at all.
    package var cacheKey: String? = nil
    /// When the origin's head reached eddy for this response (monotonic seconds); nil when the
    /// origin was not asked.
    package var upstreamHeadAt: Double? = nil
    /// True when the body was sent from memory (the memory tier's bytes), not from a file.
    var fromMemory = false

    package init(cacheStatus: CacheStatus, fromCache: Int, fromOrigin: Int, startedAt: Double, cacheKey: String? = nil,
                 upstreamHeadAt: Double? = nil) {
        (self.cacheStatus, self.fromCache, self.fromOrigin, self.startedAt) = (cacheStatus, fromCache, fromOrigin, startedAt)
        (self.cacheKey, self.upstreamHeadAt) = (cacheKey, upstreamHeadAt)
    }
}
