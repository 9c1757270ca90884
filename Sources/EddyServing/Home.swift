import EddyCache
import EddyCore
import EddyHLS
import EddyLoop
import EddyResources
import Glibc
import Logging

/// One event loop's serving side: the cache exchanges that answer requests for the resources its
/// `ResourceHome` holds, wherever the client's connection was accepted, and the responses it
/// answers (pass-through, tunnels, published hits). Made on its loop's thread and touched only
/// there.
package final class Home: LoopHome {
    /// What every home is built from, the same for all.
    package struct Shared {
        let settings: Settings
        let routing: Routing
        let logger: Logger
        package let homes: Homes
        /// The resources' side of the same homes.
        package let resourceHomes: ResourceHomes
        /// What the playlists seen so far say, for every home.
        let directory: HLSDirectory
        /// Published hits, answered by any loop (nil when the cache is unavailable).
        let snapshots: HitSnapshots?
        /// What downloads hold for offline playback (published by the download engine).
        let offline: OfflineHoldings
        /// Which origins can be reached (see `OriginHealthStateMachine`), for every loop.
        let health: OriginHealth
        /// Every loop's per-minute windows and first-byte histograms.
        let stats: RequestStats
        /// What CONNECT may reach.
        let connectPolicy: ConnectExchange.Policy
        /// The number of loops (and homes).
        let loops: Int
        /// When players were last fed from the origin: downloads yield to them.
        let players: PlayerActivity
        /// The parent tier every upstream request goes through; nil without one.
        let parents: Parents?

        package init(settings: Settings, routing: Routing, logger: Logger, homes: Homes, resourceHomes: ResourceHomes,
                     directory: HLSDirectory, snapshots: HitSnapshots?, offline: OfflineHoldings, health: OriginHealth,
                     stats: RequestStats, connectPolicy: ConnectExchange.Policy, loops: Int, players: PlayerActivity = PlayerActivity(),
                     parents: Parents? = nil) {
            (self.settings, self.routing, self.logger, self.homes, self.resourceHomes) = (settings, routing, logger, homes, resourceHomes)
            (self.directory, self.snapshots, self.offline, self.health) = (directory, snapshots, offline, health)
            (self.stats, self.connectPolicy, self.loops, self.players, self.parents) = (stats, connectPolicy, loops, players, parents)
        }
    }

    package let index: Int
    let loop: EventLoop
    /// Reaches this loop from the others.
    package let mailbox: LoopMailbox
    /// The resources this loop is home to: their cache stripe, coordinators, fills, playlists.
    package let resources: ResourceHome
    /// This loop's counters (the proxy sums them).
    let metrics: Metrics
    let services: ExchangeServices
    /// Answers a download's offline URL (`OfflineResponder`); set on the main loop's home,
    /// where the download engine runs, when downloads are on.
    package var offlineAnswer: ((any ClientRequest, @escaping (ExchangeOutcome) -> Void) -> Void)?
    /// The responses this loop is answering (cache exchanges, pass-through, tunnels).
    package let responses: LoopResponses
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
    /// Where downloads' offline URLs live (see `offlineAnswer`).
    let offlinePrefix: String
    /// This node's pseudonym when a request whose Via names it is a loop (508): in a cluster
    /// (parents configured) or once it has a name of its own; nil for a lone eddy of the default
    /// name, which another default-named eddy in front of it must not look like.
    let loopName: String?
    /// The edges this node is a parent of (`children:`): their absolute-form requests may name
    /// any URL the gate allows, mapped origins included.
    var children: [AddressRange]

    /// Made on the loop's thread, with its `ResourceHome`. Each response it answers is counted
    /// here, as it ends, before its client can ask `/metrics` (which asks every loop), and handed
    /// to `log`.
    package init(index: Int, loop: EventLoop, mailbox: LoopMailbox, store: CacheStore, metrics: Metrics, shared: Shared,
         log: @escaping (AnsweredRequest, ExchangeOutcome) -> Void) {
        let config = shared.settings
        (homes, routing, stats, snapshots, connectPolicy, self.log) =
            (shared.homes, shared.routing, shared.stats, shared.snapshots, shared.connectPolicy, log)
        self.index = index
        self.loop = loop
        self.mailbox = mailbox
        self.metrics = metrics
        logger = shared.logger
        cacheKeys = config.cacheKeys
        offlinePrefix = shared.offline.prefix
        loopName = shared.parents != nil || config.name != "eddy" ? config.name : nil
        children = config.children
        let resources = ResourceHome(
            index: index, loop: loop, mailbox: mailbox, store: store, metrics: metrics,
            settings: config.resources,
            shared: ResourceHome.Shared(routing: shared.routing, logger: shared.logger, homes: shared.resourceHomes,
                                        directory: shared.directory, health: shared.health, players: shared.players,
                                        parents: shared.parents))
        self.resources = resources
        responses = LoopResponses(metrics: metrics)
        let finished: (any ClientRequest, ExchangeOutcome) -> Void = { [responses, metrics, stats = shared.stats] request, outcome in
            responses.finished(request)
            let summary = AnsweredRequest(request)
            Home.count(summary, outcome, in: metrics, stats: stats, now: loop.wallClock())
            log(summary, outcome)
        }
        services = ExchangeServices(
            loop: loop, cache: store, coordinators: resources.coordinators, upstream: resources.upstream,
            playlists: resources.playlists, memory: resources.memory, metrics: metrics, logger: logger, routing: shared.routing,
            name: config.name, freshness: config.freshness, finished: finished)
        services.homes = shared.homes
        services.hitSnapshots = shared.snapshots
        services.offlineRenditions = shared.offline.completeRenditions
        services.recordedPlaylist = shared.offline.recordedPlaylist
        services.health = shared.health
        services.offlineWait = config.offlineWait
        let loopServices = LoopServices(
            loop: loop, upstream: resources.upstream, metrics: metrics, logger: logger, routing: shared.routing,
            learn: { [unowned playlists = resources.playlists] in playlists.learn($0, url: $1) },
            invalidate: { [unowned services] in services.invalidate($0, alsoNamedBy: $1) },
            finished: finished)
        loopServices.forwardClientAddress = config.forwardedHeaders
        loopServices.trustedProxies = config.trustedProxies
        loopServices.earlyHints = config.earlyHints
        services.loopServices = loopServices
        if let snapshots = shared.snapshots {
            store.addListener(snapshots)
            // Bytes a snapshot answer still sends from a resource's file are protected as a
            // response's are (a whole-resource eviction unlinks the file, which its descriptor
            // still reads; a punched hole would read as zeros).
            let ranges = store.protectedRanges
            store.protectedRanges = { r in snapshots.isSending(r.key) ? [0..<Int.max] : ranges(r) }
        }
    }

    /// True on this home's loop thread.
    package var isCurrent: Bool { resources.isCurrent }
}
