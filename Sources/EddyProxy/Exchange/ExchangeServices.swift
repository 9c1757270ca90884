import EddyCache
import EddyCore
import EddyLoop
import Logging

/// What a response needs from the rest of eddy, handed to each exchange by `Proxy` (the
/// composition root): the cache, the resources' coordinators, the upstream client, playlists,
/// the memory tier, counters, and where to report a finished response. One per event loop.
final class ExchangeServices {
    let loop: EventLoop
    let cache: any Cache
    let coordinators: Coordinators
    let upstream: UpstreamClient
    let playlists: Playlists
    let memory: MemoryTier
    let metrics: Metrics
    let logger: Logger
    let resolver: TargetResolver
    /// The cache's name in `Cache-Status` (RFC 9211).
    let name: String
    /// Freshness lifetime of responses without explicit freshness (seconds).
    let defaultTTL: Int
    /// Records a finished response (metrics and the access log).
    let finished: (_ request: ServerRequest, _ status: CacheStatus, _ fromCache: Int, _ fromOrigin: Int, _ startedAt: Double) -> Void

    init(loop: EventLoop, cache: any Cache, coordinators: Coordinators, upstream: UpstreamClient, playlists: Playlists,
         memory: MemoryTier, metrics: Metrics, logger: Logger, resolver: TargetResolver, name: String, defaultTTL: Int,
         finished: @escaping (ServerRequest, CacheStatus, Int, Int, Double) -> Void) {
        self.loop = loop
        self.cache = cache
        self.coordinators = coordinators
        self.upstream = upstream
        self.playlists = playlists
        self.memory = memory
        self.metrics = metrics
        self.logger = logger
        self.resolver = resolver
        self.name = name
        self.defaultTTL = defaultTTL
        self.finished = finished
    }

    // MARK: - stored responses

    /// Freshness (RFC 9111 section 4.2), with the live-playlist rule (see `ResourceCoordinator.isFresh`).
    func isFresh(_ r: CachedResource, now: Int) -> Bool {
        coordinators.of(r).isFresh(now: now, monotonicNow: EventLoop.monotonic(), defaultLifetime: defaultTTL)
    }

    /// Seconds of freshness left (negative when stale).
    func ttl(_ r: CachedResource, now: Int) -> Int { coordinators.of(r).ttl(now: now, defaultLifetime: defaultTTL) }

    /// True when a stale copy must not be served without the origin's word (RFC 9111 section 4.2.4).
    func requiresRevalidation(_ r: CachedResource) -> Bool {
        let cc = CacheControl.parse(r.meta.headers.combined("Cache-Control"))
        return cc.noCache || cc.mustRevalidate || cc.proxyRevalidate
    }

    /// Response headers for a stored resource (before Age and range-specific fields).
    func responseHeaders(for r: CachedResource) -> HeaderBlock { coordinators.of(r).responseHeaders(via: upstream.via) }

    /// The Age field value (RFC 9111 section 5.1): seconds since the stored response was received
    /// or last validated.
    func age(_ r: CachedResource, now: Int) -> String { String(Swift.max(0, now - r.meta.storedAt)) }
}
