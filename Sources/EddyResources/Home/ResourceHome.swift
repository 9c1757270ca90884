import EddyCache
import EddyCore
import EddyHLS
import EddyLoop
import Glibc
import Logging

/// One event loop as the home of its share of the resources (see `LoopHomes`): its cache
/// stripe, its curl multi handle and upstream client, the coordinators and fills of its
/// resources, its playlists and prefetch, and its part of the memory tier. Made on its loop's
/// thread and touched only there; other loops, downloads and the admin API reach it by posting.
package final class ResourceHome: LoopHome {
    /// What a home's resources are built from: the proxy's settings.
    package struct Settings {
        package var timeouts: UpstreamTransfer.Timeouts
        package var maxPerHost: Int
        /// The proxy's name, for Via (RFC 9110 section 7.6.3).
        package var name: String
        package var targetedFields: [String]
        package var maxVariants: Int
        package var prefetchSegments: Int
        /// `readahead` (see `Coordinators.readahead`); nil: unbounded.
        package var readahead: Int? = Coordinators.defaultReadahead
        /// This home's share of the memory tier, in bytes.
        package var memoryBudget: Int

        package init(timeouts: UpstreamTransfer.Timeouts, maxPerHost: Int, name: String, targetedFields: [String],
                     maxVariants: Int, prefetchSegments: Int, memoryBudget: Int) {
            (self.timeouts, self.maxPerHost, self.name, self.targetedFields) = (timeouts, maxPerHost, name, targetedFields)
            (self.maxVariants, self.prefetchSegments, self.memoryBudget) = (maxVariants, prefetchSegments, memoryBudget)
        }
    }

    /// What every home shares with the others.
    package struct Shared {
        package let routing: Routing
        package let logger: Logger
        package let homes: ResourceHomes
        /// What the playlists seen so far say, for every home.
        package let directory: HLSDirectory
        /// Which origins can be reached (see `OriginHealthStateMachine`), for every loop.
        package let health: OriginHealth
        /// When players were last fed from the origin: downloads yield to them.
        package let players: PlayerActivity
        /// The parent tier every upstream request goes through; nil without one.
        package let parents: Parents?

        package init(routing: Routing, logger: Logger, homes: ResourceHomes, directory: HLSDirectory, health: OriginHealth,
                     players: PlayerActivity = PlayerActivity(), parents: Parents? = nil) {
            (self.routing, self.logger, self.homes, self.directory, self.health) = (routing, logger, homes, directory, health)
            (self.players, self.parents) = (players, parents)
        }
    }

    package let index: Int
    package let loop: EventLoop
    package let mailbox: LoopMailbox
    package let store: CacheStore
    package let curl: CurlMulti
    package let upstream: UpstreamClient
    /// This loop's counters (the proxy sums them).
    package let metrics: Metrics
    package let coordinators: Coordinators
    package let playlists: Playlists
    package let memory: MemoryTier
    package let routing: Routing
    private let thread = pthread_self()

    /// Made on the loop's thread.
    package init(index: Int, loop: EventLoop, mailbox: LoopMailbox, store: CacheStore, metrics: Metrics,
                 settings: Settings, shared: Shared) {
        let logger = shared.logger
        (self.index, self.loop, self.mailbox, self.store, self.metrics, routing) = (index, loop, mailbox, store, metrics, shared.routing)
        // Through parents, every origin's traffic shares a parent's host and port: the per-host
        // cap, meant to spare an origin, would queue the whole node behind one parent. The
        // parents keep to the cap towards the origins.
        curl = CurlMulti(loop: loop, maxPerHost: shared.parents == nil ? settings.maxPerHost : Swift.max(settings.maxPerHost, 256))
        // One gate for every upstream fetch, whoever starts it (client, prefetch, a download,
        // revalidation).
        curl.gate = shared.routing.resolver.gate
        curl.onConnected = { [metrics] in metrics.upstreamConnect.observe($0) }
        curl.onRefused = { [logger] url, why in
            logger.warning("upstream fetch refused", metadata: ["url": "\(url)", "reason": "\(why)", "loop": "\(index)"])
        }
        upstream = UpstreamClient(curl: curl, timeouts: settings.timeouts, metrics: metrics, via: "1.1 \(settings.name)")
        upstream.parents = shared.parents
        coordinators = Coordinators(loop: loop, store: store, upstream: upstream, metrics: metrics, logger: logger,
                                    stallTimeout: settings.timeouts.stall)
        coordinators.health = shared.health
        coordinators.players = shared.players
        coordinators.targetedFields = settings.targetedFields
        coordinators.maxVariants = settings.maxVariants
        coordinators.readahead = settings.readahead
        playlists = Playlists(cache: store, coordinators: coordinators, routing: shared.routing, metrics: metrics, logger: logger,
                              loop: loop, prefetchSegments: settings.prefetchSegments, directory: shared.directory)
        playlists.cacheAvailable = store.isAvailable
        let homes = shared.homes
        let routing = shared.routing
        playlists.onHomeOf = { url, body in homes.run(onHomeOf: routing.resolver.cacheKey(url)) { body($0.playlists) } }
        memory = MemoryTier(budget: settings.memoryBudget)
        store.onEvict = { [metrics] _ in metrics.evictions += 1 }
        store.evictElsewhere = { stripe, victims in
            let h = homes.all[stripe]
            h.mailbox.post { h.store.evictIfIdle(victims) }
        }
    }

    /// Takes reloaded settings, on this home's loop: the upstream gate (new routes), targeted
    /// fields, variants kept and prefetch depth (timeouts and the memory tier need a restart).
    package func reload(_ s: Settings, gate: UpstreamGate) {
        curl.gate = gate
        coordinators.targetedFields = s.targetedFields
        coordinators.maxVariants = s.maxVariants
        coordinators.readahead = s.readahead
        playlists.prefetchSegments = s.prefetchSegments
    }

    /// True on this home's loop thread.
    package var isCurrent: Bool { pthread_equal(pthread_self(), thread) != 0 }

    /// The periodic work of a home: commit the stripe's index rows, stop fills nobody wants.
    package func tick() {
        store.flush()
        coordinators.stopUnwantedFills()
    }

    /// What a hit answered elsewhere (a published snapshot, on any loop) asks of the resource's
    /// home: its last access, and (`prefetching`) the HLS prefetch a segment request starts.
    package func snapshotHit(key: String, prefetching: Bool = true) {
        if prefetching { playlists.prefetch(after: key) }
        if let r = store.lookup(key, now: loop.wallClock()) { store.touch(r, now: loop.wallClock()) }
    }
}
