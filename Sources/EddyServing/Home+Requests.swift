import EddyCache
import EddyCore
import EddyLoop
import EddyResources

/// The requests a loop takes, whichever loop's listener accepted them: published hits,
/// tunnels, refusals and pass-through responses are answered on the loop that took them; a
/// request for a stored resource goes to its home (here, or another loop's through its mailbox
/// as a `RemoteRequest`). The main loop and the workers take requests the same way.
extension Home {
    /// Answers a request this loop's listener accepted.
    package func accept(_ request: ServerRequest) {
        // A plain small hit published by an earlier answer goes out without an exchange: the
        // same response for a fraction of the work (see `HitSnapshots`).
        // Absolute-form targets only for children: anyone else's go through the gate (RequestPlan).
        // A request with cookies waits for its URL's rule when some rule bypasses the cache for them.
        if let snapshots, request.uri.hasPrefix("/") || isChild(request),
           request.headers["Cookie"] == nil || !routing.resolver.cookies.anyBypass, let outcome = snapshots.answer(request, now: loop.wallClock()) {
            return snapshotAnswered(AnsweredRequest(request), outcome)
        }
        guard request.method != "CONNECT" else {
            // A tunnel takes over the connection's socket: here, on the connection's loop.
            metrics.requests += 1
            return responses.tunnel(request, services: services.loopServices, policy: connectPolicy)
        }
        if request.uri.hasPrefix(offlinePrefix) { return offline(request) }
        let resolver = routing.resolver
        switch RequestPlan.make(method: request.method, uri: request.uri, headers: request.headers,
                                resolver: resolver, cacheAvailable: resources.store.isAvailable, loopName: loopName,
                                child: isChild(request)) {
        case let .home(url, form, checkAddress):
            // The home is the key's: viewers whose signed URLs share a key share a home.
            let key = resolver.cacheKey(url)
            let target = homes.home(of: key)
            guard target !== self else { return answer(request, url: url, key: key, form: form, checkAddress: checkAddress) }
            let remote = RemoteRequest(request, connection: mailbox, home: target.mailbox)
            target.mailbox.post { target.answer(remote, url: url, key: key, form: form, checkAddress: checkAddress) }
        case let .refuse(status, reason, forward, allow):
            metrics.requests += 1
            if status == 508 {
                logger.warning("request loop refused", metadata: ["uri": "\(request.uri)", "via": "\(request.headers.values("Via").joined(separator: ", "))"])
            }
            // Recorded as a pass-through response is.
            services.loopServices.finished(request, RequestPlan.refuse(request, status: status, reason: reason, forward: forward, allow: allow))
        case let .passThrough(url, form, checkAddress, reason):
            metrics.requests += 1
            responses.passThrough(request, services: services.loopServices, url: url, form: form,
                                  checkAddress: checkAddress, reason: reason)
        }
    }

    /// A download's offline URL: answered on the main loop, where the engine runs; never the network.
    private func offline(_ request: ServerRequest) {
        let main = homes.all[0]
        guard main !== self else { return offlineHere(request) }
        let remote = RemoteRequest(request, connection: mailbox, home: main.mailbox)
        main.mailbox.post { main.offlineHere(remote) }
    }

    /// The main loop's side of `offline`.
    private func offlineHere(_ request: any ClientRequest) {
        metrics.requests += 1
        guard let answer = offlineAnswer else {
            return services.loopServices.finished(request, RequestPlan.refuse(request, status: 404, reason: "downloads are off",
                                                                                forward: .bypass, allow: false))
        }
        answer(request) { [services] in services.loopServices.finished(request, $0) }
    }

    /// Whether `request` comes from an edge this node is a parent of (`children:`).
    func isChild(_ request: any ClientRequest) -> Bool { isChild(peer: request.peer) }

    func isChild(peer: String) -> Bool {
        !children.isEmpty && children.contains { $0.contains(peer) }
    }

    /// Answers `request` for the resource at `url` (stored under `key`, see
    /// `TargetResolver.cacheKey`) with a cache exchange here. A key is fetched each time unless
    /// `cache_keys` says otherwise; a downloaded asset's key is pinned and served from the cache,
    /// because offline playback needs it.
    func answer(_ request: any ClientRequest, url: UpstreamURL, key: String, form: RequestForm, checkAddress: Bool) {
        metrics.requests += 1
        if !cacheKeys && resources.playlists.isKey(url) && resources.store.lookup(key, now: loop.wallClock())?.pinned != true {
            return responses.passThrough(request, services: services.loopServices, url: url, form: form,
                                         checkAddress: checkAddress, reason: "key")
        }
        let exchange = CacheExchange(services: services, request: request, url: url, key: key, form: form, checkAddress: checkAddress)
        // A child prefetches for itself, through each segment's own parent: this node prefetching
        // too would fetch segments whose home is another parent (each object twice in the tier).
        if isChild(request) {
            exchange.prefetches = false
            exchange.askedByChild = true
            let cc = CacheControl.parse(request.headers.combined("Cache-Control"))
            exchange.originRequired = cc.noCache || cc.maxAge == 0
            exchange.childMaxAge = cc.maxAge
        }
        responses.keep(exchange, for: request)
        exchange.begin()
    }

    /// A hit answered from `HitSnapshots` here: counted here and logged; the resource's home
    /// hears of it (its last access, the HLS prefetch a segment request starts) at most once a
    /// second per key (`HomeTouches`). A child's hit starts no prefetch: the child prefetches
    /// through each segment's own parent (this one prefetching too fetched segments whose home
    /// is the other parent: two origin fetches of one object in the tier, seen in CI).
    func snapshotAnswered(_ request: AnsweredRequest, _ outcome: ExchangeOutcome) {
        metrics.requests += 1
        if outcome.fromMemory { metrics.memoryHits += 1 }
        metrics.snapshotHits += 1 // eddy_snapshot_hits_total: answered without an exchange
        Home.count(request, outcome, in: metrics, stats: stats, now: loop.wallClock())
        let prefetch = resources.playlists.directory.hasSegments && !isChild(peer: request.peer)
        if let key = outcome.cacheKey, touches.due(key, now: loop.wallClock(), prefetching: prefetch) {
            homes.run(onHomeOf: key) { $0.resources.snapshotHit(key: key, prefetching: prefetch) }
        }
        log(request, outcome)
    }

    /// Counts an answered request's cache result in `metrics` (its loop's own) and in the shared
    /// per-minute windows and first-byte histograms.
    static func count(_ request: AnsweredRequest, _ outcome: ExchangeOutcome, in metrics: Metrics, stats: RequestStats, now: Int) {
        let (cacheStatus, fromCache, fromOrigin, startedAt) = (outcome.cacheStatus, outcome.fromCache, outcome.fromOrigin, outcome.startedAt)
        metrics.bytesFromCache += fromCache
        let kind: String?
        switch cacheStatus.forward {
        case nil: metrics.hits += 1; kind = "hit"
        case .miss?, .uriMiss?, .varyMiss?: metrics.misses += 1; kind = "miss"
        case .partial?, .stale?: metrics.partials += 1; kind = "partial"
        default: kind = nil
        }
        if let kind {
            stats.record(kind: kind, now: now, bytesServed: fromCache + fromOrigin, bytesFromCache: fromCache,
                         firstByte: request.headSentAt.map { $0 - startedAt })
        }
    }
}
