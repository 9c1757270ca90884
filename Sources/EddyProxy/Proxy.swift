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
    public internal(set) var config: ProxyConfig
    /// Reads the configuration again (the file and the command line), for SIGHUP; nil: no reload.
    public var reloadConfig: (() throws -> ProxyConfig)?
    /// Told of each configuration applied by a reload (the log level lives with the caller).
    public var reloaded: ((ProxyConfig) -> Void)?
    public let loop: EventLoop
    /// Reaches the main loop (every resource's home) from the worker loops.
    let mailbox: LoopMailbox
    /// The worker loops, besides the main one (`workers`; see `Proxy+Workers`).
    var workers: [Worker] = []
    let logger: Logger
    let store: CacheStore
    /// The cache's read and write API (exchanges and HLS use only this).
    var cache: any Cache { store }
    let curl: CurlMulti
    let metrics = Metrics()
    /// Builds every upstream request.
    let upstream: UpstreamClient
    /// The resources' coordinators: fills, tickets, discoveries.
    let coordinators: Coordinators
    let routing: Routing
    /// The routes as they are now (SIGHUP replaces them).
    var resolver: TargetResolver { routing.resolver }
    let memory: MemoryTier
    let playlists: Playlists
    /// What exchanges are given (see `ExchangeServices`).
    var services: ExchangeServices!
    let accessLog: AccessLog
    var server: HTTPServer!
    var adminServer: HTTPServer?
    /// What CONNECT may reach (from the config, built once).
    let connectPolicy: ConnectExchange.Policy
    /// Offline downloads and their API (on the admin listener).
    var downloads: DownloadAPI?
    /// The cache's admin API (resources, pins, purges).
    var resourcesAPI: ResourcesAPI!
    private var flushTimer: LoopTimer!
    private var signals: [SignalWatcher] = []
    var draining = false
    /// Responses in progress here; each removes itself in `exchangeFinished`.
    private(set) lazy var responses = LoopResponses(metrics: metrics)

    public init(config: ProxyConfig, logger: Logger) throws {
        self.config = config
        self.logger = logger
        loop = EventLoop()
        mailbox = LoopMailbox(loop: loop)
        do {
            store = try CacheStore(directory: config.cacheDir, maxSize: config.maxSize, logger: logger)
        } catch {
            // An unusable cache must not take the service down: serve everything uncached.
            logger.error("cache directory unusable; passing every response through uncached",
                         metadata: ["dir": "\(config.cacheDir)", "error": "\(error)"])
            store = try CacheStore.unavailable(logger: logger)
        }
        curl = CurlMulti(loop: loop, maxPerHost: config.maxUpstreamPerHost)
        connectPolicy = ConnectExchange.Policy(enabled: config.allowConnect, ports: Set(config.connectPorts),
                                               idleTimeout: Double(config.connectIdleTimeout))
        memory = MemoryTier(budget: config.memoryCache)
        routing = Routing(TargetResolver(routes: config.routes, allowHosts: config.allowHosts))
        // One gate for every upstream fetch, whoever starts it (client, prefetch, revalidation).
        curl.gate = routing.resolver.gate
        curl.onConnected = { [metrics] in metrics.upstreamConnect.observe($0) }
        curl.onRefused = { [logger] url, why in
            logger.warning("upstream fetch refused", metadata: ["url": "\(url)", "reason": "\(why)"])
        }
        accessLog = try AccessLog(path: config.accessLog, format: config.accessLogFormat)
        upstream = UpstreamClient(curl: curl, timeouts: config.upstreamTimeouts, metrics: metrics, via: "1.1 \(config.name)")
        coordinators = Coordinators(loop: loop, store: store, upstream: upstream, metrics: metrics, logger: logger,
                                    stallTimeout: config.upstreamTimeouts.stall)
        coordinators.targetedFields = config.freshness.targetedFields
        coordinators.maxVariants = config.maxVariants
        playlists = Playlists(cache: store, coordinators: coordinators, routing: routing, metrics: metrics, logger: logger,
                              loop: loop, prefetchSegments: config.prefetchSegments)
        playlists.cacheAvailable = store.isAvailable
        store.onEvict = { [unowned self] _ in metrics.evictions += 1 }
        services = ExchangeServices(
            loop: loop, cache: store, coordinators: coordinators, upstream: upstream, playlists: playlists, memory: memory,
            metrics: metrics, logger: logger, routing: routing, name: config.name, freshness: config.freshness,
            finished: { [unowned self] in exchangeFinished(request: $0, $1) })
        let passThrough = PassThroughServices(
            loop: loop, upstream: upstream, metrics: metrics, logger: logger, routing: routing,
            learn: { [unowned playlists] in playlists.learn($0, url: $1) },
            invalidate: { [unowned self] in services.invalidate($0, alsoNamedBy: $1) },
            finished: { [unowned self] in exchangeFinished(request: $0, $1) })
        passThrough.forwardClientAddress = config.forwardedHeaders
        passThrough.trustedProxies = Set(config.trustedProxies)
        services.passThrough = passThrough
        let loops = Proxy.loopCount(config)
        server = try HTTPServer(loop: loop, host: config.listenHost, port: config.listenPort, limits: config.limits,
                              sharing: loops > 1 ? .first : .exclusive)
        server.handler = { [unowned self] in handle($0) }
        server.onWarning = { [logger] in logger.warning("\($0)") }
        if store.isAvailable {
            let database: JobDatabase?
            do { database = try JobDatabase(path: config.cacheDir + "/downloads.db") } catch {
                logger.error("download jobs can not be kept across restarts", metadata: ["error": "\(error)"])
                database = nil
            }
            let settings = DownloadEngine.Settings(concurrency: config.downloadConcurrency, maxParallel: config.maxParallelDownloads,
                                                   retries: config.downloadRetries)
            let engine = DownloadEngine(coordinators: coordinators, playlists: playlists, routing: routing, settings: settings,
                                        database: database, selfAuthority: SelfAuthority(host: config.listenHost, port: config.listenPort), logger: logger)
            downloads = DownloadAPI(engine: engine)
            store.addListener(DownloadCacheWatcher(engine: engine))
            services.offlineRenditions = { [unowned engine] in engine.completeRenditions(of: $0) }
            services.recordedPlaylist = { [unowned engine] in engine.recordedPlaylist(of: $0) }
        }
        resourcesAPI = ResourcesAPI(store: store, coordinators: coordinators, routing: routing,
                                    selfAuthority: SelfAuthority(host: config.listenHost, port: config.listenPort))
        if let admin = config.admin {
            // Anyone who can reach the admin listener can purge the cache and start downloads.
            if !AdminAccess.isLoopback(host: admin.host) && (config.adminToken ?? "").isEmpty {
                throw ConfigFile.ConfigError(description: "the admin listener \(admin.host):\(admin.port) is not a loopback address: set admin_token "
                                  + "(--admin-token, or EDDY_ADMIN_TOKEN), or listen on 127.0.0.1")
            }
            let s = try HTTPServer(loop: loop, host: admin.host, port: admin.port, limits: config.limits)
            s.handler = { [unowned self] in handleAdmin($0) }
            adminServer = s
        }
        if store.isAvailable {
            let snapshots = HitSnapshots()
            services.hitSnapshots = snapshots
            store.addListener(snapshots)
            // Bytes a snapshot answer still sends from a resource's file are protected as a
            // response's are (a whole-resource eviction unlinks the file, which its descriptor
            // still reads; a punched hole would read as zeros).
            let ranges = store.protectedRanges
            store.protectedRanges = { r in snapshots.isSending(r.key) ? [0..<Int.max] : ranges(r) }
        }
        if loops > 1 { try startWorkers(count: loops, port: server.boundPort) }
        flushTimer = LoopTimer(loop: loop, repeating: true) { [unowned self] in
            store.flush()
            accessLog.flush()
            services.hitSnapshots?.sweep()
            coordinators.stopUnwantedFills()
        }
        flushTimer.schedule(after: 0.5)
        for sig in [SIGTERM, SIGINT] {
            signals.append(SignalWatcher(loop: loop, signal: sig) { [unowned self] in drain() })
        }
        signals.append(SignalWatcher(loop: loop, signal: SIGHUP) { [unowned self] in reloadConfiguration() })
        // logrotate moves the access log away, then sends SIGUSR1: the next line goes to a new file.
        signals.append(SignalWatcher(loop: loop, signal: SIGUSR1) { [unowned self] in
            do { try accessLog.reopen() } catch { logger.error("cannot reopen the access log", metadata: ["error": "\(error)"]) }
        })
    }

    /// Runs until SIGTERM/SIGINT has drained every response.
    public func run() {
        logger.info("eddy listening", metadata: [
            "listen": "\(config.listenHost):\(config.listenPort)", "cache": "\(config.cacheDir)",
            "cached_resources": "\(store.startupCount)", "cached_bytes": "\(store.totalBytes)", "loops": "\(workers.count + 1)",
        ])
        // Listening already (the listeners were bound in init): systemd may start what depends on eddy.
        SystemdNotifier.notify("READY=1\nSTATUS=serving\nMAINPID=\(getpid())")
        loop.run()
        // Worker loops finish writing what the exchanges handed them, then stop.
        let deadline = EventLoop.monotonic() + 5
        for w in workers { w.finish(deadline: deadline) }
        workers.removeAll()
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
        SystemdNotifier.notify("STOPPING=1")
        logger.info("draining", metadata: ["in_flight": "\(responses.count)"])
        server.stopAccepting()
        for w in workers { w.stopAccepting() }
        adminServer?.stopAccepting()
        responses.closeTunnels()
        let deadline = EventLoop.monotonic() + 30
        let poll = LoopTimer(loop: loop, repeating: true) { [unowned self] in
            // The workers' own responses (pass-through) count too, as they last published them.
            let idle = responses.count == 0 && workers.allSatisfy { $0.counters.exchanges == 0 }
            if idle || EventLoop.monotonic() > deadline { loop.stop() }
        }
        poll.schedule(after: 0.05)
        drainTimer = poll
    }
    /// Polls for the end of the drain; a second signal stops at once.
    private var drainTimer: LoopTimer?

    // MARK: - requests

    func handle(_ request: any ClientRequest) {
        // A plain small hit published by an earlier answer goes out without an exchange: the
        // same response for a fraction of the work (see `HitSnapshots`; workers do this too).
        if let local = request as? ServerRequest, let snapshots = services.hitSnapshots,
           let outcome = snapshots.answer(local, now: loop.wallClock()) {
            snapshotHitAnswered(AnsweredRequest(local), outcome)
            return
        }
        metrics.requests += 1
        responses.keep(request, for: request)
        if request.method == "CONNECT", let request = request as? ServerRequest {
            // On the connection's loop (a worker's CONNECT runs on the worker, see `Worker`).
            return responses.tunnel(request, services: services.passThrough, policy: connectPolicy)
        }
        switch RequestPlan.make(method: request.method, uri: request.uri, headers: request.headers, resolver: resolver,
                                cacheAvailable: store.isAvailable) {
        case let .refuse(status, reason, forward, allow):
            exchangeFinished(request: request, RequestPlan.refuse(request, status: status, reason: reason, forward: forward, allow: allow))
        case let .passThrough(url, form, checkAddress, reason):
            responses.passThrough(request, services: services.passThrough, url: url, form: form, checkAddress: checkAddress,
                                  reason: reason)
        case let .home(url, form, checkAddress):
            // A key is fetched each time unless cache_keys says otherwise; a downloaded asset's key is
            // pinned and served from the cache, because offline playback needs it.
            if !config.cacheKeys && playlists.isKey(url) && store.lookup(url.description, now: loop.wallClock())?.pinned != true {
                return responses.passThrough(request, services: services.passThrough, url: url, form: form,
                                             checkAddress: checkAddress, reason: "key")
            }
            let exchange = CacheExchange(services: services, request: request, url: url, form: form, checkAddress: checkAddress)
            responses.keep(exchange, for: request)
            exchange.begin()
        }
    }

    private func exchangeFinished(request: any ClientRequest, _ outcome: ExchangeOutcome) {
        responses.finished(request)
        record(AnsweredRequest(request), outcome)
    }
}

