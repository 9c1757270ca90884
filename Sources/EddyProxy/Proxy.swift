import EddyAdmin
import EddyCache
import EddyCore
import EddyDownloads
import EddyHLS
import EddyLoop
import EddyResources
import EddyServing
import EddyTLS
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
    /// Reaches the main loop from the worker loops.
    let mailbox: LoopMailbox
    /// The worker loops, besides the main one (`workers`; see `Proxy+Workers`).
    var workers: [Worker] = []
    let logger: Logger
    /// The cache, one stripe per loop (see `CacheStore.stripes`); the main loop's is the first.
    let stores: [CacheStore]
    /// Every loop's serving side, one per loop (see `Homes`); the main loop's is the first.
    let homes: Homes
    /// Every loop's resources, one home per loop (see `ResourceHomes`): what downloads and the
    /// admin API reach.
    let resourceHomes: ResourceHomes
    /// The main loop's serving side.
    var home: Home { homes.all[0] }
    /// The main loop's cache stripe: its totals and limit are the whole cache's.
    var store: CacheStore { stores[0] }
    /// The main loop's counters; each worker keeps its own (`loopMetrics`).
    let metrics = Metrics()
    /// Every loop's per-minute windows and first-byte histograms.
    let requestStats = RequestStats()
    let routing: Routing
    /// The routes as they are now (SIGHUP replaces them).
    var resolver: TargetResolver { routing.resolver }
    /// Published hits any loop answers (nil when the cache is unavailable).
    let hitSnapshots: HitSnapshots?
    let accessLog: AccessLog
    var server: HTTPServer!
    var adminServer: HTTPServer?
    /// The TLS listeners of the main loop (`tls_listen`), and the certificates every loop's share.
    var tlsServers: [HTTPServer] = []
    var tlsContext: TLSServerContext?
    /// What CONNECT may reach (from the config, built once).
    let connectPolicy: ConnectExchange.Policy
    /// Offline downloads and their API (on the admin listener).
    var downloads: DownloadAPI?
    /// The cache's admin API (resources, pins, purges).
    var resourcesAPI: ResourcesAPI!
    /// What a page in the user's browser may not do to the admin listener.
    var adminGuard = AdminRequestGuard(listenHost: "127.0.0.1")
    private var flushTimer: LoopTimer!
    private var signals: [SignalWatcher] = []
    /// Serving, draining or stopped (SIGTERM, SIGINT).
    private(set) var drainState = DrainStateMachine()
    var draining: Bool { drainState.isDraining }
    /// Responses in progress on the main loop; each removes itself as it finishes.
    var responses: LoopResponses { home.responses }

    public init(config: ProxyConfig, logger: Logger) throws {
        // Until the proxy watches them, the signals it handles wait, blocked: it listens before it
        // installs its handlers, and a SIGTERM in between killed it undrained. Blocked from the
        // start, because every thread made meanwhile (the loops', Dispatch's for the index)
        // keeps the mask it was made with, and a process signal goes to any thread that does
        // not block it; so they all come to this thread, whose loop watches them. A start that
        // hangs (a dead disk) is then ended by SIGKILL, as systemd's stop timeout does.
        var watched = sigset_t()
        sigemptyset(&watched)
        for sig in [SIGTERM, SIGINT, SIGHUP, SIGUSR1] { sigaddset(&watched, sig) }
        pthread_sigmask(SIG_BLOCK, &watched, nil)
        defer { pthread_sigmask(SIG_UNBLOCK, &watched, nil) }
        self.config = config
        self.logger = logger
        loop = EventLoop()
        mailbox = loop.mailbox
        let loops = Proxy.loopCount(config)
        if let admin = config.admin, !AdminAccess.isLoopback(host: admin.host), (config.adminToken ?? "").isEmpty {
            // Anyone who can reach the admin listener can purge the cache and start downloads.
            throw ConfigFile.ConfigError(description: "the admin listener \(admin.host):\(admin.port) is not a loopback address: set admin_token "
                              + "(--admin-token, or EDDY_ADMIN_TOKEN), or listen on 127.0.0.1")
        }
        // Listening comes first, as nginx binds before it forks: a client that connects while the
        // cache opens waits in the backlog (the loop answers it once it runs) rather than being
        // refused and polling again. Nothing is accepted before `run`.
        server = try HTTPServer(loop: loop, host: config.listenHost, port: config.listenPort, limits: config.limits,
                                sharing: loops > 1 ? .first : .exclusive)
        (tlsContext, tlsServers) = try Proxy.openTLSListeners(config, loop: loop, sharing: loops > 1 ? .first : .exclusive)
        homes = Homes(count: loops)
        resourceHomes = ResourceHomes(count: loops)
        do {
            stores = try CacheStore.stripes(directory: config.cacheDir, maxSize: config.maxSize, count: loops, logger: logger)
        } catch {
            // An unusable cache must not take the service down: serve everything uncached.
            logger.error("cache directory unusable; passing every response through uncached",
                         metadata: ["dir": "\(config.cacheDir)", "error": "\(error)"])
            stores = try CacheStore.unavailableStripes(count: loops, logger: logger)
        }
        connectPolicy = ConnectExchange.Policy(enabled: config.allowConnect, ports: Set(config.connectPorts),
                                               idleTimeout: Double(config.connectIdleTimeout))
        routing = Routing(TargetResolver(routes: config.routes, allowHosts: config.allowHosts, cacheKeys: config.cacheKeyRules, cookies: config.cookieRules))
        accessLog = try AccessLog(path: config.accessLog, format: config.accessLogFormat)
        hitSnapshots = stores[0].isAvailable ? HitSnapshots() : nil
        let catalog = OfflineCatalog()
        let offline = Home.OfflineHoldings(completeRenditions: { catalog.completeRenditions(of: $0) },
                                           recordedPlaylist: { catalog.recordedPlaylist(of: $0) },
                                           prefix: DownloadEngine.offlinePrefix)
        CacheStatus.cacheName = config.name // before any loop runs
        let shared = Home.Shared(settings: config.homeSettings(loops: loops), routing: routing, logger: logger, homes: homes,
                                 resourceHomes: resourceHomes, directory: HLSDirectory(),
                                 snapshots: hitSnapshots, offline: offline, health: OriginHealth(logger: logger),
                                 stats: requestStats, connectPolicy: connectPolicy,
                                 loops: loops, players: PlayerActivity(enabled: config.downloadYield),
                                 parents: config.parents.isEmpty ? nil : Parents(config.parents, goDirect: config.parentGoDirect,
                                                                                 probeWindow: Double(config.upstreamTimeouts.connect), logger: logger))
        let main = Home(index: 0, loop: loop, mailbox: mailbox, store: stores[0], metrics: metrics, shared: shared,
                        log: { [unowned self] in log($0, $1) })
        homes.install(main)
        resourceHomes.install(main.resources)
        for s in [server!] + tlsServers {
            s.handler = { [unowned self] in home.accept($0) }
            s.onWarning = { [logger] in logger.warning("\($0)") }
        }
        if store.isAvailable {
            let database: JobDatabase?
            do { database = try JobDatabase(path: config.cacheDir + "/downloads.db") } catch {
                logger.error("download jobs can not be kept across restarts", metadata: ["error": "\(error)"])
                database = nil
            }
            let settings = DownloadEngine.Settings(concurrency: config.downloadConcurrency, maxParallel: config.maxParallelDownloads,
                                                   retries: config.downloadRetries,
                                                   stallTimeout: Double(config.upstreamTimeouts.stall), window: config.downloadWindow,
                                                   rateLimit: config.downloadRateLimit)
            let engine = DownloadEngine(homes: resourceHomes, routing: routing, settings: settings, database: database,
                                        selfAuthority: SelfAuthority(host: config.listenHost, port: config.listenPort),
                                        catalog: catalog, logger: logger)
            downloads = DownloadAPI(engine: engine)
            home.offlineAnswer = { OfflineResponder(engine: engine, request: $0).respond(done: $1) }
            // Each stripe's listener runs on its loop; the watcher hands the keys to this one.
            let watcher = DownloadCacheWatcher(engine: engine, mailbox: mailbox)
            for s in stores { s.addListener(watcher) }
        }
        adminGuard = AdminRequestGuard(listenHost: config.admin?.host ?? "127.0.0.1", names: config.adminHosts)
        resourcesAPI = ResourcesAPI(homes: resourceHomes, routing: routing,
                                    selfAuthority: SelfAuthority(host: config.listenHost, port: config.listenPort))
        if loops > 1 { try startWorkers(count: loops, port: server.boundPort, shared: shared) }
        // The admin listener opens last: once it answers, every loop listens (a supervisor or a
        // test that waits on it would otherwise send its first clients to the main loop alone).
        if let admin = config.admin {
            do {
                let s = try HTTPServer(loop: loop, host: admin.host, port: admin.port, limits: config.limits.admin)
                s.handler = { [unowned self] in handleAdmin($0) }
                s.vetHead = { [unowned self] in !refusedAdmission($0) }
                adminServer = s
            } catch where !config.adminChosen {
                // The default's port is taken (most often another eddy on this machine): serve
                // without the listener, and say which flag places it elsewhere.
                logger.warning("no admin listener: \(error); choose its address with --admin HOST:PORT (admin: in the config), or --no-admin")
            } catch {
                throw ConfigFile.ConfigError(description: "\(error) (the admin listener: --admin HOST:PORT or admin: in the config; --no-admin or admin: off for none)")
            }
        }
        flushTimer = LoopTimer(loop: loop, repeating: true) { [unowned self] in
            home.resources.tick()
            accessLog.flush()
            hitSnapshots?.sweep()
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
            "tls_listen": "\(zip(config.tlsListens, tlsServers).map { "\($0.host):\($1.boundPort)" }.joined(separator: " "))",
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
        // Every loop has stopped: each stripe is committed from here (their threads are gone).
        for s in stores { s.shutdown() }
        downloads?.engine.shutdown()
        logger.info("eddy stopped")
    }

    /// SIGTERM: stop accepting, let responses in flight finish (at most 30 s), commit the index,
    /// exit; a second signal exits at once (`DrainStateMachine`).
    private func drain() {
        perform(drainState.signalled(now: EventLoop.monotonic()))
    }

    private func perform(_ action: DrainStateMachine.Action) {
        switch action {
        case .none: return
        case .stop: drainTimer?.cancel(); loop.stop()
        case .startDraining:
            SystemdNotifier.notify("STOPPING=1")
            logger.info("draining", metadata: ["in_flight": "\(responses.count)"])
            server.stopAccepting()
            for s in tlsServers { s.stopAccepting() }
            for w in workers { w.stopAccepting() }
            adminServer?.stopAccepting()
            responses.closeTunnels()
            let poll = LoopTimer(loop: loop, repeating: true) { [unowned self] in
                // Every home's responses, counted on its loop now, and the replies this loop's
                // connections still wait for (those answered on another home come back here).
                // Asked, not waited for: the deadline holds even if a home stopped answering.
                perform(drainState.polled(now: EventLoop.monotonic()))
                guard drainState.state != .stopped else { return }
                homes.askAll({ $0.responses.count }, then: { [unowned self] counts in
                    let idle = counts.allSatisfy { $0 == 0 } && server.repliesInFlight == 0
                        && tlsServers.allSatisfy { $0.repliesInFlight == 0 }
                        && workers.allSatisfy { $0.counters.repliesInFlight == 0 }
                    perform(drainState.counted(idle: idle))
                })
            }
            poll.schedule(after: 0.05)
            drainTimer = poll
        }
    }

    /// Polls for the end of the drain; a second signal stops at once.
    private var drainTimer: LoopTimer?
}

