import EddyCache
import EddyCore
import EddyHLS
import EddyLoop
import EddyResources
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
    /// Plain memory-tier hits published for any loop to answer (nil when the cache is unavailable).
    var hitSnapshots: HitSnapshots?
    /// The homes of every resource, this loop's among them (see `Homes`).
    var homes: Homes!
    let metrics: Metrics
    let logger: Logger
    let routing: Routing
    /// The routes as they are now (a reload replaces them).
    var resolver: TargetResolver { routing.resolver }
    /// The cache's name in `Cache-Status` (RFC 9211).
    let name: String
    /// Freshness choices left to the cache (default and heuristic lifetimes, stale on error).
    /// Freshness rules (a configuration reload replaces them).
    var freshness: FreshnessPolicy
    /// What pass-through responses on this loop use (and the fields and redirects of cached ones).
    var loopServices: LoopServices!
    /// The renditions downloads of the multivariant playlist at a URL hold whole (their URLs), nil
    /// when no download is of it: what that playlist lists when served offline.
    var offlineRenditions: ((UpstreamURL) -> Set<String>?)?
    /// The recording a download made of the live media playlist at a URL (EVENT while it
    /// grows, VOD once ended); nil when none did: what that playlist is served as offline.
    var recordedPlaylist: ((UpstreamURL) -> String?)?
    /// Which origins can be reached (see `OriginHealth`).
    var health: OriginHealth?
    /// Seconds a request for a download's copy waits on a silent origin before it is answered
    /// from disk (`offline_wait`).
    var offlineWait = 1.5
    /// Records a finished response (metrics and the access log).
    let finished: (_ request: any ClientRequest, _ outcome: ExchangeOutcome) -> Void

    init(loop: EventLoop, cache: any Cache, coordinators: Coordinators, upstream: UpstreamClient, playlists: Playlists,
         memory: MemoryTier, metrics: Metrics, logger: Logger, routing: Routing, name: String, freshness: FreshnessPolicy,
         finished: @escaping (any ClientRequest, ExchangeOutcome) -> Void) {
        self.loop = loop
        self.cache = cache
        self.coordinators = coordinators
        self.upstream = upstream
        self.playlists = playlists
        self.memory = memory
        self.metrics = metrics
        self.logger = logger
        self.routing = routing
        self.name = name
        self.freshness = freshness
        self.finished = finished
    }

    /// `Allow` for a 405 (RFC 9110 section 15.5.6): the methods eddy passes on.
    static var allowHeader: HTTPHeaders {
        var h = HTTPHeaders()
        h.set("Allow", "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS")
        return h
    }

    /// The client's fields to send upstream (see `LoopServices.upstreamFields`).
    func upstreamFields(for request: any ClientRequest, fill url: UpstreamURL?) -> HTTPHeaders {
        loopServices.upstreamFields(for: request, fill: url)
    }

    /// Invalidates the stored response for `url`, and for each URI reference in `others` that
    /// resolves to the same origin (RFC 9111 section 4.4). Every loop's snapshots of them are
    /// revoked here and now, before this answer goes out, so that the client's next request, on
    /// whichever loop, can not get a hit on what it has just changed; each stored response is
    /// then marked stale on its home, which handles that before any request posted after it.
    func invalidate(_ url: UpstreamURL, alsoNamedBy others: [String?]) {
        let resolver = routing.resolver
        for t in ExchangeServices.invalidationTargets(url, alsoNamedBy: others) {
            let key = resolver.cacheKey(t)
            hitSnapshots?.revoke(key: key)
            homes.run(onHomeOf: key) { $0.services.invalidateStored(t, key: key) }
        }
    }

    /// Marks the stored responses for `t` (stored under `key`, and its variants) stale; on their home.
    func invalidateStored(_ t: UpstreamURL, key: String) {
        // A resource a response still reads is only marked stale, which a snapshot would not hear.
        hitSnapshots?.revoke(key: key)
        for r in coordinators.storedResponses(for: key, now: loop.wallClock()) {
            coordinators.of(r).invalidate()
            metrics.invalidations += 1
        }
    }

    /// What an unsafe method's answer invalidates (RFC 9111 section 4.4): the target, and the
    /// Location and Content-Location references that resolve to the same origin.
    static func invalidationTargets(_ url: UpstreamURL, alsoNamedBy others: [String?]) -> [UpstreamURL] {
        var targets = [url]
        for case let ref? in others {
            if let u = URIReference.resolve(ref, against: url), u.hasSameOrigin(as: url) { targets.append(u) }
        }
        return targets
    }

    /// A redirect's Location as the client must see it (see `LoopServices.clientLocation`).
    func clientLocation(_ location: String?, base: UpstreamURL, form: RequestForm) -> String? {
        loopServices.clientLocation(location, base: base, form: form)
    }

    // MARK: - stored responses

    /// Freshness (RFC 9111 section 4.2), with the live-playlist rule (see `ResourceCoordinator.isFresh`).
    /// The exchange passes the coordinator it resolved once (its ticket's), not the resource.
    func isFresh(_ c: ResourceCoordinator, now: Int) -> Bool {
        c.isFresh(now: now, monotonicNow: EventLoop.monotonic(), policy: freshness)
    }

    /// Seconds of freshness left (negative when stale).
    func ttl(_ c: ResourceCoordinator, now: Int) -> Int { c.ttl(now: now, policy: freshness) }

    /// True when a stale copy may be served at once while one background request revalidates it:
    /// within the response's stale-while-revalidate window (RFC 5861 section 3), and the response
    /// does not require revalidation.
    func mayServeWhileRevalidating(_ c: ResourceCoordinator, now: Int) -> Bool {
        let f = c.freshness(freshness)
        let staleness = -ttl(c, now: now)
        return staleness >= 0 && staleness < f.staleWhileRevalidate && !f.requiresRevalidation && c.resource.meta.length != nil
    }

    /// True when the stored copy may replace an error (origin unreachable, 5xx, timeout): it does
    /// not require revalidation (RFC 9111 section 4.2.4) and is within its stale-if-error window
    /// (RFC 5861 section 4), or `serve_stale_on_error` when it names none.
    func mayServeStaleOnError(_ c: ResourceCoordinator, now: Int) -> Bool {
        let f = c.freshness(freshness)
        guard c.resource.meta.length != nil, !f.requiresRevalidation else { return false }
        return -ttl(c, now: now) <= (f.staleIfError ?? freshness.serveStaleOnError)
    }

    /// Response headers for a stored resource (before Age and range-specific fields).
    func responseHeaders(for c: ResourceCoordinator) -> HeaderBlock { c.responseHeaders(via: upstream.via) }

    /// The Age field value (RFC 9111 section 5.1): seconds since the stored response was received
    /// or last validated.
    func age(_ r: CachedResource, now: Int) -> String { String(Swift.max(0, now - r.meta.storedAt)) }
}
