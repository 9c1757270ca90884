import EddyCache
import EddyCore
import EddyHLS
import EddyLoop
import EddyResources
import Glibc
import Logging

/// One event loop as the home of its share of the resources (see `Homes`): its cache stripe,
/// its curl multi handle and upstream client, the coordinators and fills of its resources, its
/// part of the memory tier, and the cache exchanges that answer requests for them, wherever the
/// client's connection was accepted. Made on its loop's thread and touched only there.
final class Home {
    /// What every home is built from, the same for all.
    struct Shared {
        let config: ProxyConfig
        let routing: Routing
        let logger: Logger
        let homes: Homes
        /// What the playlists seen so far say, for every home.
        let directory: HLSDirectory
        /// Published hits, answered by any loop (nil when the cache is unavailable).
        let snapshots: HitSnapshots?
        /// What downloads hold for offline playback (published by the download engine).
        let catalog: OfflineCatalog
        /// Which origins can be reached (see `OriginHealthStateMachine`), for every loop.
        let health: OriginHealth
        /// Every loop's per-minute windows and first-byte histograms.
        let stats: RequestStats
        /// What CONNECT may reach.
        let connectPolicy: ConnectExchange.Policy
        /// The number of loops (and homes).
        let loops: Int
    }

    let index: Int
    let loop: EventLoop
    /// Reaches this loop from the others.
    let mailbox: LoopMailbox
    let store: CacheStore
    let curl: CurlMulti
    let upstream: UpstreamClient
    /// This loop's counters (the proxy sums them).
    let metrics: Metrics
    let coordinators: Coordinators
    let playlists: Playlists
    let memory: MemoryTier
    let services: ExchangeServices
    /// Answers a download's offline URL (`OfflineResponder`); set on the main loop's home,
    /// where the download engine runs, when downloads are on.
    var offlineAnswer: ((any ClientRequest, @escaping (ExchangeOutcome) -> Void) -> Void)?
    /// The responses this loop is answering (cache exchanges, pass-through, tunnels).
    let responses: LoopResponses
    let logger: Logger
    let homes: Homes
    let routing: Routing
    let stats: RequestStats
    let snapshots: HitSnapshots?
    let connectPolicy: ConnectExchange.Policy
    /// Writes an answered request's access-log line (on the main loop).
    let log: (AnsweredRequest, ExchangeOutcome) -> Void
    /// Which snapshot hits answered here are reported to their homes.
    let touches = HomeTouches()
    /// Whether keys (EXT-X-KEY URLs) are cached (`cache_keys`; a reload changes it).
    var cacheKeys: Bool
    private let thread = pthread_self()

    /// Made on the loop's thread. Each response it answers is counted here, as it ends, before
    /// its client can ask `/metrics` (which asks every loop), and handed to `log`.
    init(index: Int, loop: EventLoop, mailbox: LoopMailbox, store: CacheStore, metrics: Metrics, shared: Shared,
         log: @escaping (AnsweredRequest, ExchangeOutcome) -> Void) {
        let config = shared.config
        (homes, routing, stats, snapshots, connectPolicy, self.log) =
            (shared.homes, shared.routing, shared.stats, shared.snapshots, shared.connectPolicy, log)
        self.index = index
        self.loop = loop
        self.mailbox = mailbox
        self.store = store
        self.metrics = metrics
        logger = shared.logger
        cacheKeys = config.cacheKeys
        curl = CurlMulti(loop: loop, maxPerHost: config.maxUpstreamPerHost)
        // One gate for every upstream fetch, whoever starts it (client, prefetch, revalidation).
        curl.gate = shared.routing.resolver.gate
        curl.onConnected = { [metrics] in metrics.upstreamConnect.observe($0) }
        curl.onRefused = { [logger] url, why in
            logger.warning("upstream fetch refused", metadata: ["url": "\(url)", "reason": "\(why)", "loop": "\(index)"])
        }
        upstream = UpstreamClient(curl: curl, timeouts: config.upstreamTimeouts, metrics: metrics, via: "1.1 \(config.name)")
        coordinators = Coordinators(loop: loop, store: store, upstream: upstream, metrics: metrics, logger: logger,
                                    stallTimeout: config.upstreamTimeouts.stall)
        coordinators.health = shared.health
        coordinators.targetedFields = config.freshness.targetedFields
        coordinators.maxVariants = config.maxVariants
        playlists = Playlists(cache: store, coordinators: coordinators, routing: shared.routing, metrics: metrics, logger: logger,
                              loop: loop, prefetchSegments: config.prefetchSegments, directory: shared.directory)
        playlists.cacheAvailable = store.isAvailable
        playlists.onHomeOf = { [homes = shared.homes] url, body in homes.run(onHomeOf: url.description) { body($0.playlists) } }
        // The memory tier's budget is the proxy's, split evenly: each home keeps its own
        // resources' bodies.
        memory = MemoryTier(budget: config.memoryCache / shared.loops)
        responses = LoopResponses(metrics: metrics)
        let finished: (any ClientRequest, ExchangeOutcome) -> Void = { [responses, metrics, stats = shared.stats] request, outcome in
            responses.finished(request)
            let summary = AnsweredRequest(request)
            Home.count(summary, outcome, in: metrics, stats: stats, now: loop.wallClock())
            log(summary, outcome)
        }
        services = ExchangeServices(
            loop: loop, cache: store, coordinators: coordinators, upstream: upstream, playlists: playlists, memory: memory,
            metrics: metrics, logger: logger, routing: shared.routing, name: config.name, freshness: config.freshness,
            finished: finished)
        services.homes = shared.homes
        services.hitSnapshots = shared.snapshots
        let catalog = shared.catalog
        services.offlineRenditions = { catalog.completeRenditions(of: $0) }
        services.recordedPlaylist = { catalog.recordedPlaylist(of: $0) }
        services.health = shared.health
        services.offlineWait = config.offlineWait
        let loopServices = LoopServices(
            loop: loop, upstream: upstream, metrics: metrics, logger: logger, routing: shared.routing,
            learn: { [unowned playlists] in playlists.learn($0, url: $1) },
            invalidate: { [unowned services] in services.invalidate($0, alsoNamedBy: $1) },
            finished: finished)
        loopServices.forwardClientAddress = config.forwardedHeaders
        loopServices.trustedProxies = Set(config.trustedProxies)
        loopServices.earlyHints = config.earlyHints
        services.loopServices = loopServices
        store.onEvict = { [metrics] _ in metrics.evictions += 1 }
        if let snapshots = shared.snapshots {
            store.addListener(snapshots)
            // Bytes a snapshot answer still sends from a resource's file are protected as a
            // response's are (a whole-resource eviction unlinks the file, which its descriptor
            // still reads; a punched hole would read as zeros).
            let ranges = store.protectedRanges
            store.protectedRanges = { r in snapshots.isSending(r.key) ? [0..<Int.max] : ranges(r) }
        }
        let homes = shared.homes
        store.evictElsewhere = { stripe, victims in
            let h = homes.all[stripe]
            h.mailbox.post { h.store.evictIfIdle(victims) }
        }
    }

    /// True on this home's loop thread.
    var isCurrent: Bool { pthread_equal(pthread_self(), thread) != 0 }

    /// The periodic work of a home: commit the stripe's index rows, stop fills nobody wants.
    func tick() {
        store.flush()
        coordinators.stopUnwantedFills()
    }
}
