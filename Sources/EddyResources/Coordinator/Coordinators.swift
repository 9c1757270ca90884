import EddyCache
import EddyCore
import EddyLoop
import Logging

/// The resource coordinators of one event loop, and what they share: the store, the upstream
/// client, discoveries of resources not yet stored, the fills in flight (for the unwanted-fill
/// sweep) and the fills paused by a full cache. Exchanges, prefetch and (next) download jobs reach
/// resources through it; `Proxy` only builds it.
package final class Coordinators {
    package let loop: EventLoop
    /// The store, for its budget and eviction hooks; everything else goes through `cache`.
    let store: CacheStore
    /// The cache's read and write API.
    package var cache: any Cache { store }
    let upstream: UpstreamClient
    let metrics: Metrics
    let logger: Logger
    /// Seconds without a byte before an upstream transfer is abandoned.
    let stallTimeout: Int
    /// Targeted cache-control fields obeyed instead of Cache-Control (RFC 9213).
    package var targetedFields = FreshnessPolicy().targetedFields
    /// Variants kept per URL whose responses vary (see `storageKey`).
    package var maxVariants = 8
    /// Discovery fills by cache key: later requests for the same URL wait on them. Written by
    /// `join` and the fills' ends only.
    private(set) var discovering: [String: FillSession] = [:]
    /// Every fill whose transfer is in flight.
    package var liveFills: [Int: FillSession] = [:]
    private var pausedFills: [FillSession] = []
    private lazy var resumeTimer = LoopTimer(loop: loop) { [unowned self] in resumeFills() }
    private var nextFillID = 1

    /// How far ahead of a running fill's cursor a response waits for it rather than starting its own.
    package static let lookahead = 2 * CacheStore.blockSize
    /// How far behind a response's position its bytes stay protected: what may still be queued for
    /// sendfile (`CacheExchange.highWater + stepBytes`).
    static let behind = 512 << 10
    /// Consecutive failed fills at one offset before a ticket gives up.
    package static let maxAttempts = 4
    /// Which origins can be reached: fills report what they meet (see `OriginHealth`).
    package var health: OriginHealth?
    /// When players were last fed from the origin, for every loop (see `PlayerActivity`).
    package var players = PlayerActivity()
    /// How far past the furthest byte sent to a response its fills run (`readahead`, issue 58);
    /// nil: to the end of what was asked.
    package var readahead: Int? = Coordinators.defaultReadahead
    /// `readahead`'s default (README, "Read-ahead"): 16 MiB.
    package static let defaultReadahead = 16 << 20
    /// Seconds a fill nobody waits for keeps running (see `stopUnwantedFills`).
    static let unwantedGrace = 2.0

    package init(loop: EventLoop, store: CacheStore, upstream: UpstreamClient, metrics: Metrics, logger: Logger, stallTimeout: Int) {
        self.loop = loop
        self.store = store
        self.upstream = upstream
        self.metrics = metrics
        self.logger = logger
        self.stallTimeout = stallTimeout
        store.isInUse = { r in (r.attachment as? ResourceCoordinator)?.isInUse ?? false }
        store.protectedRanges = { r in (r.attachment as? ResourceCoordinator)?.protectedRanges() ?? [] }
    }

    /// The coordinator of `r`, created on first use.
    package func of(_ r: CachedResource) -> ResourceCoordinator {
        // Only this type is attached, and this runs several times per hit: an unchecked cast
        // (`as?` is a runtime type check).
        if let a = r.attachment { return unsafeDowncast(a, to: ResourceCoordinator.self) }
        let c = ResourceCoordinator(resource: r, coordinators: self)
        r.attachment = c
        return c
    }

    /// Creates a fill (the caller registers and begins it). `asked` nil means a plain GET.
    func startFill(kind: FillKind, fetch: FetchContext, resource: CachedResource?,
                   asked: RangeResponseCheck.Asked?, startedBy: Int? = nil) -> FillSession {
        let id = nextFillID
        nextFillID += 1
        return FillSession(coordinators: self, id: id, kind: kind, fetch: fetch, resource: resource,
                           asked: asked, startedBy: startedBy)
    }

    /// True when confirmed bytes have reached the cache's budget.
    var isOverBudget: Bool { store.maxSize > 0 && store.totalBytes >= store.budget }

    // MARK: - joining

    // The one way to a resource's head from the origin (issue 30): whoever asks (a response, a
    // prefetch, a download, a background revalidation) joins the fill in flight for that key or
    // starts it here, so `discovering` and a coordinator's `revalidation` have one writer.

    /// Joins the discovery of `key` in flight, or starts one for `purpose` (fetching `asked`).
    /// `waiter` (none for a prefetch) hears the head, and owns a fill it started: it takes over
    /// the transfer of an answer that is not for storing. `joined` is false when it started.
    @discardableResult
    package func join(_ key: String, for purpose: FillPurpose, fetch: FetchContext,
              asked: @autoclosure () -> RangeResponseCheck.Asked?, waiter: HeadWaiter?) -> (fill: FillSession, joined: Bool) {
        if let pending = discovering[key] {
            if let waiter { pending.addHeadWaiter(waiter) }
            return (pending, true)
        }
        let fill = startFill(kind: .discovery, fetch: fetch, resource: nil, asked: asked())
        discovering[key] = fill
        fill.begin(for: purpose, ownedBy: waiter)
        return (fill, false)
    }

    /// Joins the revalidation of stored `r` in flight, or starts one (a conditional request, RFC
    /// 9110 section 13.1, counted in `eddy_revalidations_total`) that later requests join.
    @discardableResult
    package func joinRevalidation(of r: CachedResource, fetch: FetchContext, asked: @autoclosure () -> RangeResponseCheck.Asked?,
                          waiter: HeadWaiter?) -> (fill: FillSession, joined: Bool) {
        let c = of(r)
        if let pending = c.revalidation {
            if let waiter { pending.addHeadWaiter(waiter) }
            return (pending, true)
        }
        metrics.revalidations += 1
        let fill = startFill(kind: .revalidation, fetch: fetch, resource: r, asked: asked())
        c.revalidationStarted(fill)
        fill.begin(for: nil, ownedBy: waiter)
        return (fill, false)
    }

    /// True while a discovery of `key` is in flight.
    package func isDiscovering(_ key: String) -> Bool { discovering[key] != nil }

    // MARK: - discovery

    /// The discovery fill's head arrived: releases its waiters. A storable response is now a
    /// resource they read through tickets; otherwise the fill's owner takes its transfer over and
    /// the others fetch on their own.
    func discoveryEnded(_ fill: FillSession, storable: Bool) {
        if discovering[fill.fetch.key] === fill { discovering[fill.fetch.key] = nil }
        let waiters = fill.takeHeadWaiters()
        for w in waiters {
            if storable {
                w.headArrived(.ready)
            } else if w === fill.owner {
                w.headArrived(.notStorable(transfer: fill.detachTransfer(), head: fill.head, refusal: fill.refusal))
            } else {
                w.headArrived(.notStorable(transfer: nil, head: nil, refusal: fill.refusal))
            }
        }
    }

    func discoveryFailed(_ fill: FillSession) {
        if discovering[fill.fetch.key] === fill { discovering[fill.fetch.key] = nil }
    }

    // MARK: - unwanted and paused fills

    /// A fill nobody waits for finishes the block it is in and stops (see `FillStateMachine`);
    /// on a slow origin that block may take hours while the fill holds one of the origin's
    /// connections. So a fill unwanted for `unwantedGrace` seconds is stopped wherever it is;
    /// one wanted only by prefetches gets four stall timeouts. Called once a second.
    package func stopUnwantedFills() {
        guard !liveFills.isEmpty else { return }
        let now = EventLoop.monotonic()
        var stop: [FillSession] = []
        for f in liveFills.values {
            guard let unwanted = f.unwantedFor(now: now) else { continue }
            let grace = f.wantedPriority == .prefetch || f.isPrefetch ? 4 * Double(stallTimeout) : Coordinators.unwantedGrace
            if unwanted > grace { stop.append(f) }
        }
        for f in stop {
            logger.debug("stopping a fill nobody waits for", metadata: ["url": "\(f.fetch.url)"])
            f.cancel()
            if let r = f.resource { of(r).dropPrefetches() }
        }
    }

    func pauseFill(_ fill: FillSession) {
        pausedFills.append(fill)
        resumeTimer.schedule(after: 0.05)
    }

    /// Wakes paused fills once the cache has room or someone waits on their resource. Runs from a
    /// timer, never inside a curl callback.
    private func resumeFills() {
        store.enforceLimit()
        let list = pausedFills
        pausedFills.removeAll()
        for f in list where f.paused {
            if let r = f.resource, f.state.isActive, !of(r).shouldThrottle(), of(r).readaheadLimit.map({ f.cursor < $0 }) ?? true {
                f.resume()
            } else if f.state.isActive {
                pausedFills.append(f)
            }
        }
        if !pausedFills.isEmpty { resumeTimer.schedule(after: 0.05) }
    }

    /// A response on `c`'s resource sent more: a fill paused there by readahead resumes on the
    /// next turn (never inside this call, which may be inside a curl callback).
    func readerMoved(_ c: ResourceCoordinator) {
        if !pausedFills.isEmpty, pausedFills.contains(where: { $0.resource === c.resource }) { resumeTimer.schedule(after: 0) }
    }

    /// A response (`player`) or a download started waiting on `c`'s resource: its paused fills
    /// must run, and a player's wait ends a download's rate pause too.
    func waiterArrived(_ c: ResourceCoordinator, player: Bool) {
        if player { for f in c.fills { f.playerArrived() } }
        if pausedFills.contains(where: { $0.resource === c.resource }) { resumeTimer.schedule(after: 0) }
    }
}
