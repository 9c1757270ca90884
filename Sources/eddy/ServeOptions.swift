import ArgumentParser
import EddyCore
import EddyLoop
import EddyProxy
import Foundation
import Logging

/// `eddy serve`'s arguments as plain values: what `Eddy.Serve` decodes with ArgumentParser, and
/// what `ServeFastPath` reads without it. Checking them, merging them over the config file and
/// running the proxy start from here, whichever parser read them.
struct ServeOptions: Equatable {
    var config: String?
    var listen: String?
    var tlsListen: [String] = []
    var tlsCert: String?
    var tlsKey: String?
    var cacheDir: String?
    var origin: [String] = []
    var allowHost: [String] = []
    var adminHost: [String] = []
    var parent: [String] = []
    var child: [String] = []
    var name: String?
    var maxSize: String?
    var memoryCache: String?
    var accessLog: String?
    var defaultTtl: Int?
    var admin: String?
    var noAdmin = false
    var adminToken: String?
    var prefetchSegments: Int?
    var readahead: String?
    var cacheKeys = false
    var earlyHints = false
    var headerTimeout: Int?
    var connectTimeout: Int?
    var stallTimeout: Int?
    var offlineWait: Double?
    var downloadRateLimit: String?
    var maxUpstreamPerHost: Int?
    var caFile: String?
    var workers: String?
    var logLevel: String?
    var logFormat: String?
    var accessLogFormat: String?

    /// The checks ArgumentParser runs after decoding (`Serve.validate`); the fast path runs them too.
    func validate() throws {
        if let maxSize, ByteSize.parse(maxSize) == nil { throw ValidationError("--max-size '\(maxSize)' is not a size such as 512M or 10G") }
        if let readahead, readahead != "off", ByteSize.parse(readahead) == nil {
            throw ValidationError("--readahead '\(readahead)' is not a size such as 16M, or off")
        }
        if let memoryCache, ByteSize.parse(memoryCache) == nil { throw ValidationError("--memory-cache '\(memoryCache)' is not a size such as 32M") }
        if let listen { _ = try wrap { try ConfigFile.parseListen(listen) } }
        for l in tlsListen { _ = try wrap { try ConfigFile.parseListen(l) } }
        if admin != nil && noAdmin { throw ValidationError("--admin and --no-admin: choose one") }
        if let logFormat, !["text", "json"].contains(logFormat) { throw ValidationError("--log-format is text or json") }
        if let accessLogFormat, AccessLog.Format(rawValue: accessLogFormat) == nil {
            throw ValidationError("--access-log-format is combined or json")
        }
        for (name, v) in [("--header-timeout", headerTimeout), ("--connect-timeout", connectTimeout), ("--stall-timeout", stallTimeout),
                          ("--max-upstream-per-host", maxUpstreamPerHost)] {
            if let v, v < 1 { throw ValidationError("\(name) must be at least 1") }
        }
        if let offlineWait, !(offlineWait > 0 && offlineWait <= 60) { throw ValidationError("--offline-wait is seconds above 0, at most 60") }
        if let downloadRateLimit, ByteSize.parse(downloadRateLimit) == nil {
            throw ValidationError("--download-rate-limit is bytes a second like 4M or 500K (0: no limit)")
        }
        if let workers, workers != "auto", Int(workers).map({ (1...256).contains($0) }) != true {
            throw ValidationError("--workers is auto or a number from 1 to 256")
        }
        for o in origin { _ = try wrap { try ConfigFile.route(spec: o) } }
        for p in allowHost { _ = try wrap { try ConfigFile.hostPattern(p) } }
    }

    private func wrap<T>(_ f: () throws -> T) throws -> T {
        do { return try f() } catch { throw ValidationError("\(error)") }
    }

    func resolvedConfig() throws -> ProxyConfig {
        var c = ProxyConfig()
        if let config { c = try wrap { try ConfigFile.load(path: config, into: c) } }
        if let listen { (c.listenHost, c.listenPort) = try ConfigFile.parseListen(listen) }
        if let cacheDir { c.cacheDir = cacheDir }
        if !tlsListen.isEmpty {
            c.tlsListens = try tlsListen.map { l in
                let (host, port) = try ConfigFile.parseListen(l)
                return ListenAddress(host: host, port: port)
            }
        }
        if let tlsCert { c.tlsCert = tlsCert }
        if let tlsKey { c.tlsKey = tlsKey }
        try wrap { try ConfigFile.checkTLS(c) }
        if !origin.isEmpty { c.routes = try origin.map(ConfigFile.route(spec:)) }
        if !allowHost.isEmpty { c.allowHosts += try allowHost.map(ConfigFile.hostPattern) }
        if !adminHost.isEmpty { c.adminHosts += adminHost }
        for t in child {
            guard let r = AddressRange(t) else { throw ValidationError("--child: '\(t)' is not an address or CIDR") }
            c.children.append(r)
        }
        if !parent.isEmpty { c.parents = try parent.map { p in try wrap { try ConfigFile.parent(p) } } }
        if let name {
            guard ConfigFile.isToken(name) else { throw ValidationError("--name: expected a token (letters, digits, -._~ and the like)") }
            c.name = name
        }
        if let maxSize { c.maxSize = ByteSize.parse(maxSize)! }
        if let memoryCache { c.memoryCache = ByteSize.parse(memoryCache)! }
        if let accessLog { c.accessLog = accessLog }
        if let defaultTtl { c.defaultTTL = defaultTtl }
        if let admin { (c.admin, c.adminChosen) = (try ConfigFile.parseListen(admin), true) }
        if noAdmin { (c.admin, c.adminChosen) = (nil, true) }
        // getenv, not ProcessInfo, which copies the whole environment (start-up, issue 33).
        if let t = adminToken ?? getenv("EDDY_ADMIN_TOKEN").map({ String(cString: $0) }), !t.isEmpty { c.adminToken = t }
        if let logLevel { c.logLevel = logLevel }
        if let logFormat { c.logFormat = logFormat }
        if let accessLogFormat { c.accessLogFormat = AccessLog.Format(rawValue: accessLogFormat)! }
        if let caFile { c.upstreamTimeouts.caFile = caFile }
        if let prefetchSegments { c.prefetchSegments = prefetchSegments }
        if let readahead { c.readahead = readahead == "off" ? nil : ByteSize.parse(readahead)! }
        if let headerTimeout { c.limits.headerTimeout = headerTimeout }
        if let connectTimeout { c.upstreamTimeouts.connect = connectTimeout }
        if let stallTimeout { c.upstreamTimeouts.stall = stallTimeout }
        if let offlineWait { c.offlineWait = offlineWait }
        if let downloadRateLimit { c.downloadRateLimit = ByteSize.parse(downloadRateLimit) ?? 0 }
        if let maxUpstreamPerHost { c.maxUpstreamPerHost = maxUpstreamPerHost }
        if cacheKeys { c.cacheKeys = true }
        if earlyHints { c.earlyHints = true }
        if let workers { c.workers = workers == "auto" ? 0 : Int(workers)! }
        if c.name == "eddy" && !c.parents.isEmpty {
            // In a cluster each node needs its own pseudonym (Via loop detection): the host
            // and port, unless the config names it.
            let host = String(ProcessInfo.processInfo.hostName.unicodeScalars.filter { ConfigFile.isToken(String($0)) })
            c.name = "eddy-\(host.isEmpty ? "host" : host)-\(c.listenPort)"
        }
        return c
    }

    /// Runs the proxy until it drains.
    func run() throws {
        let c = try resolvedConfig()
        let level = Logger.Level(rawValue: c.logLevel) ?? .info
        let json = c.logFormat == "json"
        let shared = SharedLogLevel(level)
        LoggingSystem.bootstrap { label in
            if json { return SharedLevelHandler(inner: JSONLogHandler(label: label, level: .trace), shared: shared) }
            return SharedLevelHandler(inner: StreamLogHandler.standardError(label: label), shared: shared)
        }
        let logger = Logger(label: "eddy")
        do {
            let proxy = try Proxy(config: c, logger: logger)
            // SIGHUP reads the same file and flags again (the flags still win).
            proxy.reloadConfig = { try resolvedConfig() }
            proxy.reloaded = { new in
                if let l = Logger.Level(rawValue: new.logLevel) { shared.level = l }
            }
            // libcurl opens once eddy listens (CurlLibrary), and a moment later: a hit needs none,
            // and the first answers do not share the CPU with its forty libraries. On two cores,
            // opening it at once took a core from the loops just as the first request came (the
            // first hit on a worker loop waited 4-5 ms for the scheduler: 12 ms against 8.5 with
            // one loop). A transfer that comes sooner opens it itself (`require`).
            CurlLibrary.preload(after: 0.05) { failure in
                guard let failure else { return }
                logger.critical("cannot open libcurl: no upstream fetch is possible", metadata: ["error": "\(failure)"])
                Foundation.exit(69) // EX_UNAVAILABLE
            }
            proxy.run()
            // Everything is committed and flushed. Exit here rather than tear the proxy
            // down: Swift releases its properties in no promised order, and an event_base
            // freed before one of its events makes event_free take a freed lock (with
            // libevent's threading on, a release build hung there after SIGTERM). A libcurl
            // still opening in the background is waited for first (`CurlLibrary.settle`).
            CurlLibrary.settle()
            Foundation.exit(0)
        } catch {
            logger.critical("cannot start", metadata: ["error": "\(error)"])
            throw ExitCode(1)
        }
    }
}
