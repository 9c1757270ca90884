import EddyCache
import EddyCore
import EddyHLS
import EddyLoop
import Glibc
import Logging

/// The proxy: accepts client requests, routes them to an upstream URL, and serves them from the
/// cache (`CacheExchange`) or passes them through (`DirectExchange`). Owns the loop's server, curl
/// driver and cache store; everything runs on the loop thread.
public final class Proxy {
    public let config: ProxyConfig
    public let loop: EventLoop
    let logger: Logger
    let store: CacheStore
    let curl: CurlMulti
    let metrics = Metrics()
    let resolver: TargetResolver
    let hls = HLSDirectory()
    let memory: MemoryTier
    /// Playlists larger than this are served as they are, not rewritten.
    static let maxPlaylistBytes = 16 << 20
    private let accessLog: AccessLog
    private var server: HTTPServer!
    private var adminServer: HTTPServer?
    private var flushTimer: LoopTimer!
    private var signals: [SignalWatcher] = []
    private var draining = false
    /// Responses in progress. Exchanges are otherwise only referenced from callbacks, so this is
    /// what keeps them alive; each removes itself in `exchangeFinished`.
    private var active: [ObjectIdentifier: AnyObject] = [:]
    private var inFlight: Int { active.count }
    /// Discovery fills by cache key: later requests for the same URL wait on them.
    var discovering: [String: FillSession] = [:]
    /// Every fill whose transfer is in flight.
    var liveFills: [ObjectIdentifier: FillSession] = [:]
    /// Consecutive failed fills at one offset before a response gives up.
    let maxResumes = 4
    let via: String

    public init(config: ProxyConfig, logger: Logger) throws {
        self.config = config
        self.logger = logger
        loop = EventLoop()
        do {
            store = try CacheStore(directory: config.cacheDir, maxSize: config.maxSize, logger: logger)
        } catch {
            // An unusable cache must not take the service down: serve everything uncached.
            logger.error("cache directory unusable; passing every response through uncached",
                         metadata: ["dir": "\(config.cacheDir)", "error": "\(error)"])
            store = try CacheStore.unavailable(logger: logger)
        }
        curl = CurlMulti(loop: loop, maxPerHost: config.maxUpstreamPerHost)
        memory = MemoryTier(budget: config.memoryCache)
        resolver = TargetResolver(routes: config.routes, allowHosts: config.allowHosts)
        // One gate for every upstream fetch, whoever starts it (client, prefetch, revalidation).
        curl.gate = resolver.gate
        curl.onRefused = { [logger] url, why in
            logger.warning("upstream fetch refused", metadata: ["url": "\(url)", "reason": "\(why)"])
        }
        accessLog = try AccessLog(path: config.accessLog)
        via = "1.1 \(config.name)"
        store.isInUse = { r in r.readers > 0 || ((r.attachment as? ResourceFills)?.isBusy ?? false) }
        store.protectedRanges = { r in (r.attachment as? ResourceFills)?.protectedRanges() ?? [] }
        store.onEvict = { [unowned self] _ in metrics.evictions += 1 }
        server = try HTTPServer(loop: loop, host: config.listenHost, port: config.listenPort, limits: config.limits)
        server.handler = { [unowned self] in handle($0) }
        server.onWarning = { [logger] in logger.warning("\($0)") }
        if let admin = config.admin {
            let s = try HTTPServer(loop: loop, host: admin.host, port: admin.port, limits: config.limits)
            s.handler = { [unowned self] in handleAdmin($0) }
            adminServer = s
        }
        flushTimer = LoopTimer(loop: loop, repeating: true) { [unowned self] in
            store.flush()
            accessLog.flush()
            stopUnwantedFills()
        }
        flushTimer.schedule(after: 0.5)
        for sig in [SIGTERM, SIGINT] {
            signals.append(SignalWatcher(loop: loop, signal: sig) { [unowned self] in drain() })
        }
    }

    /// Runs until SIGTERM/SIGINT has drained every response.
    public func run() {
        logger.info("eddy listening", metadata: [
            "listen": "\(config.listenHost):\(config.listenPort)", "cache": "\(config.cacheDir)",
            "cached_resources": "\(store.startupCount)", "cached_bytes": "\(store.totalBytes)",
        ])
        loop.run()
        accessLog.flush()
        store.shutdown()
        logger.info("eddy stopped")
    }

    /// SIGTERM: stop accepting, let responses in flight finish (at most 30 s), commit the index, exit.
    private func drain() {
        guard !draining else {
            loop.stop()
            return
        }
        draining = true
        logger.info("draining", metadata: ["in_flight": "\(inFlight)"])
        server.stopAccepting()
        adminServer?.stopAccepting()
        let deadline = EventLoop.monotonic() + 30
        let poll = LoopTimer(loop: loop, repeating: true) { [unowned self] in
            if inFlight == 0 || EventLoop.monotonic() > deadline { loop.stop() }
        }
        poll.schedule(after: 0.05)
        drainTimer = poll
    }
    /// Polls for the end of the drain; a second signal stops at once.
    private var drainTimer: LoopTimer?

    // MARK: - requests

    private func handle(_ request: ServerRequest) {
        metrics.requests += 1
        active[ObjectIdentifier(request)] = request
        if request.method == "CONNECT" {
            request.sendError(405, "CONNECT tunnels are not supported; eddy is a caching proxy for http(s) GET",
                              extra: allowHeader())
            exchangeFinished(request: request, cacheStatus: CacheStatus(forward: .method), fromCache: 0, fromOrigin: 0, startedAt: EventLoop.monotonic())
            return
        }
        guard request.method == "GET" || request.method == "HEAD" else {
            request.sendError(405, "method \(request.method) is not supported", extra: allowHeader())
            exchangeFinished(request: request, cacheStatus: CacheStatus(forward: .method), fromCache: 0, fromOrigin: 0, startedAt: EventLoop.monotonic())
            return
        }
        switch resolver.resolve(request.uri) {
        case let .refused(status, reason):
            request.sendError(status, reason)
            exchangeFinished(request: request, cacheStatus: CacheStatus(forward: .request), fromCache: 0, fromOrigin: 0, startedAt: EventLoop.monotonic())
        case let .upstream(url, form, checkAddress):
            if let bypass = bypassReason(request, url) {
                let direct = DirectExchange(proxy: self, request: request, url: url, form: form, checkAddress: checkAddress, reason: bypass)
                active[ObjectIdentifier(request)] = direct
                direct.begin()
                metrics.bypasses += 1
                return
            }
            let exchange = CacheExchange(proxy: self, request: request, url: url, form: form, checkAddress: checkAddress)
            active[ObjectIdentifier(request)] = exchange
            exchange.begin()
        }
    }

    /// Why a request goes to the origin uncached, or nil.
    private func bypassReason(_ request: ServerRequest, _ url: UpstreamURL) -> String? {
        // RFC 9111 section 3.5: responses to authenticated requests are not shared by default.
        if request.headers["Authorization"] != nil { return "authorization" }
        if !store.isAvailable { return "cache unavailable" }
        // LL-HLS blocking reloads and delta updates are answered by the origin each time.
        if HLSPlaylist.hasDeliveryDirectives(url.pathAndQuery) { return "ll-hls directive" }
        if !config.cacheKeys && !hls.keyURLs.isEmpty && hls.keyURLs.contains(url.description) { return "key" }
        return nil
    }

    private func allowHeader() -> HTTPHeaders {
        var h = HTTPHeaders()
        h.set("Allow", "GET, HEAD")
        return h
    }

    private func handleAdmin(_ request: ServerRequest) {
        guard request.uri == "/metrics" || request.uri.hasPrefix("/metrics?") else {
            request.sendError(404, "the admin listener serves /metrics only")
            return
        }
        let text = metrics.render(gauges: [
            ("eddy_cache_bytes", "Confirmed bytes in the cache", store.totalBytes),
            ("eddy_cache_max_bytes", "Configured --max-size", store.maxSize),
            ("eddy_upstream_active", "Upstream transfers in flight", curl.activeCount),
            ("eddy_client_connections", "Open client connections", server.openConnections),
            ("eddy_header_timeouts_total", "Connections closed for slow request headers", server.headerTimeouts),
            ("eddy_connections_shed_total", "Idle connections closed when out of descriptors", server.shed),
            ("eddy_accept_failures_total", "accept() failures for lack of descriptors", server.acceptFailures),
            ("eddy_memory_cache_bytes", "Bytes of small bodies held in memory", memory.used),
        ])
        var h = HTTPHeaders()
        h.set("Content-Type", "text/plain; version=0.0.4")
        request.send(status: 200, headers: h, body: Array(text.utf8))
    }

    /// Replaces the object that keeps a request's response alive (a cache exchange turning into a
    /// pass-through).
    func adopt(_ request: ServerRequest, by owner: AnyObject) { active[ObjectIdentifier(request)] = owner }

    func exchangeFinished(request: ServerRequest, cacheStatus: CacheStatus, fromCache: Int, fromOrigin: Int, startedAt: Double) {
        active[ObjectIdentifier(request)] = nil
        metrics.bytesFromCache += fromCache
        switch cacheStatus.forward {
        case nil: metrics.hits += 1
        case .miss?, .uriMiss?: metrics.misses += 1
        case .partial?, .stale?: metrics.partials += 1
        default: break
        }
        guard accessLog.isEnabled else { return }
        accessLog.record(peer: request.peer, method: request.method, uri: request.uri, version: request.version,
                         status: request.status, bytes: request.bodyBytesSent, referer: request.headers["Referer"],
                         userAgent: request.headers["User-Agent"], cacheStatus: cacheStatus.logWord,
                         fromCache: fromCache, fromOrigin: fromOrigin,
                         durationMs: (EventLoop.monotonic() - startedAt) * 1000, now: loop.wallClock())
    }

    // MARK: - fills

    func startFill(key: String, url: UpstreamURL, kind: FillKind, resource: CachedResource?,
                   asked: RangeResponseCheck.Asked?, checkAddress: Bool, userAgent: String?) -> FillSession {
        FillSession(proxy: self, key: key, url: url, kind: kind, resource: resource, asked: asked,
                    checkAddress: checkAddress, userAgent: userAgent)
    }

    /// The discovery fill's head arrived: release its waiters.
    func discoveryEnded(_ fill: FillSession, storable: Bool) {
        if discovering[fill.key] === fill { discovering[fill.key] = nil }
        let waiters = fill.headWaiters
        fill.headWaiters.removeAll()
        if storable {
            for w in waiters { w.resourceReady() }
            return
        }
        for w in waiters {
            if w === fill.owner {
                w.passThrough(transfer: fill.detachTransfer(), head: fill.head, refusal: fill.refusal)
            } else {
                w.passThrough(transfer: nil, head: nil, refusal: fill.refusal)
            }
        }
    }

    func discoveryFailed(_ fill: FillSession) {
        if discovering[fill.key] === fill { discovering[fill.key] = nil }
    }

    /// Freshness (RFC 9111 section 4.2). A live media playlist is also stale once half its target
    /// duration has passed since eddy last heard from the origin (RFC 8216 section 6.2.2 has
    /// clients reload about that often), and whenever eddy does not know when that was.
    func isFresh(_ r: CachedResource, now: Int) -> Bool {
        if let fills = r.attachment as? ResourceFills, case let .live(target)? = fills.hlsKind {
            guard let at = fills.playlistFetchedAt, EventLoop.monotonic() - at < target / 2 else { return false }
        }
        return ttl(r, now: now) > 0
    }

    /// Seconds of freshness left (negative when stale).
    func ttl(_ r: CachedResource, now: Int) -> Int {
        // The lifetime depends only on the stored headers: computed once per version and refresh.
        let fills = ResourceFills.of(r)
        if let c = fills.lifetime, c.version == r.version, c.storedAt == r.meta.storedAt {
            return c.seconds - (now - r.meta.storedAt)
        }
        let h = r.meta.headers
        let f = Freshness.compute(cacheControl: CacheControl.parse(h.combined("Cache-Control")), expires: h["Expires"],
                                  date: h["Date"], defaultLifetime: config.defaultTTL)
        fills.lifetime = (r.version, r.meta.storedAt, f.lifetime)
        return f.lifetime - (now - r.meta.storedAt)
    }

    func requiresRevalidation(_ r: CachedResource) -> Bool {
        let cc = CacheControl.parse(r.meta.headers.combined("Cache-Control"))
        return cc.noCache || cc.mustRevalidate || cc.proxyRevalidate
    }

    /// Response headers for a stored resource (before Age and range-specific fields): the replayed
    /// origin headers, validators, Accept-Ranges and Via. A 206 carries the same (RFC 9110 section 15.3.7).
    func responseHeaders(for r: CachedResource) -> HeaderBlock {
        // Built once per (version, refresh) and shared by every hit. The fields added here are
        // never among the replayed ones (StoragePolicy.notReplayed), so `add` suffices.
        let fills = ResourceFills.of(r)
        if let c = fills.headerCache, c.version == r.version, c.storedAt == r.meta.storedAt { return c.headers }
        var h = r.meta.headers
        if let ct = r.meta.contentType { h.add("Content-Type", ct) }
        if let e = r.meta.etag { h.add("ETag", e) }
        if let lm = r.meta.lastModified { h.add("Last-Modified", lm) }
        h.add("Accept-Ranges", "bytes")
        h.add("Via", via)
        let block = HeaderBlock(h)
        fills.headerCache = (r.version, r.meta.storedAt, block)
        return block
    }

    /// The Age field value (RFC 9111 section 5.1): seconds since the stored response was received
    /// or last validated.
    func age(_ r: CachedResource, now: Int) -> String { String(Swift.max(0, now - r.meta.storedAt)) }

    /// Every response on a resource must stop using the old version's bytes.
    func versionChanged(_ r: CachedResource, by fill: FillSession) {
        for f in ResourceFills.of(r).fills where f !== fill { f.cancel() }
        ResourceFills.of(r).wake()
    }

    /// Forgets a resource the origin no longer serves.
    func dropResource(_ r: CachedResource) {
        store.remove(r)
        ResourceFills.of(r).wake()
    }

    /// True when a fill on `r` should wait: the cache is at its limit and no response is blocked
    /// on the bytes (a blocked one always gets its bytes, so nothing can deadlock).
    func shouldThrottle(_ r: CachedResource) -> Bool {
        guard store.maxSize > 0, store.totalBytes >= store.budget else { return false }
        return ResourceFills.of(r).waiters.isEmpty
    }

    /// A fill nobody waits for finishes the block it is in and stops (see FillSession.received);
    /// on a slow origin that block may take hours while the fill holds one of the origin's
    /// connections. So a fill unwanted for `unwantedGrace` seconds is stopped wherever it is;
    /// a prefetch (wanted by nobody yet, by design) gets four stall timeouts.
    private func stopUnwantedFills() {
        guard !liveFills.isEmpty else { return }
        let now = EventLoop.monotonic()
        var stop: [FillSession] = []
        for f in liveFills.values {
            if f.isWanted { f.unwantedSince = nil; continue }
            guard let since = f.unwantedSince else { f.unwantedSince = now; continue }
            let grace = f.isPrefetch ? 4 * Double(config.upstreamTimeouts.stall) : Proxy.unwantedGrace
            if now - since > grace { stop.append(f) }
        }
        for f in stop {
            logger.debug("stopping a fill nobody waits for", metadata: ["url": "\(f.url)"])
            f.cancel()
        }
    }
    static let unwantedGrace = 2.0

    private var pausedFills: [FillSession] = []
    private lazy var resumeTimer = LoopTimer(loop: loop) { [unowned self] in resumeFills() }

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
            if let r = f.resource, f.state.isActive, !shouldThrottle(r) { f.resume() } else if f.state.isActive { pausedFills.append(f) }
        }
        if !pausedFills.isEmpty { resumeTimer.schedule(after: 0.05) }
    }

    /// A response started waiting on `r`: its paused fills must run.
    func waiterArrived(_ r: CachedResource) {
        if pausedFills.contains(where: { $0.resource === r }) { resumeTimer.schedule(after: 0) }
    }

    /// A cache write failed (disk full, unwritable dir): the resource's fill stopped.
    func storeFailed(_ r: CachedResource) {
        let fills = ResourceFills.of(r)
        fills.storeBroken = true
        fills.wake()
    }
}
