/// The operator's choices for freshness where RFC 9111 leaves them to the cache.
public struct FreshnessPolicy: Equatable, Sendable {
    /// Lifetime of a response with no explicit freshness and no Last-Modified (seconds). 0 by
    /// default: a deliberate override of the origin when set (RFC 9111 section 4.2.2 allows a
    /// heuristic only; this one ignores the response's own information).
    public var defaultLifetime = 0
    /// The most a heuristic lifetime (10% of Date - Last-Modified) may reach (seconds).
    public var heuristicMax = 86400
    /// Lifetime of a 404 or 410 without explicit freshness (seconds): negative caching.
    public var negativeLifetime = 10
    /// How long past its lifetime a stored response may still be served when the origin can not
    /// be reached or answers 5xx, unless it requires revalidation (seconds; RFC 9111 section
    /// 4.2.4 allows it, and a media edge needs it). A response's own stale-if-error wins.
    public var serveStaleOnError = 86400
    /// Targeted cache-control fields eddy obeys instead of Cache-Control, most specific first
    /// (RFC 9213): eddy's own, then the one for every CDN.
    public var targetedFields = ["Eddy-Cache-Control", "CDN-Cache-Control"]

    public init() {}
}
