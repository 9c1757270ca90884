import ArgumentParser
import EddyCore
import EddyLoop
import EddyProxy
import Foundation
import Logging

extension Eddy {
    /// `eddy serve`: run the proxy.
    struct Serve: ParsableCommand {
        static let configuration = CommandConfiguration(
            // `Eddy.main` parses `eddy serve ...` with `Serve` alone, as the root. A root with a
            // super-command skips ArgumentParser's check for --generate-completion-script, which
            // parses two more commands by reflection first (1.4 ms of each start, measured with
            // perf); the name takes effect nowhere else, since under `Eddy` the root is `Eddy`, and
            // a completion request falls back to the whole tree, which answers it.
            _superCommandName: "eddy",
            abstract: "Run the proxy.",
            discussion: """
            URL forms: with --origin https://cdn.example.com, GET /movies/a.mp4 fetches \
            https://cdn.example.com/movies/a.mp4. GET /https://host/path and absolute-form requests \
            (http_proxy) work for hosts admitted by --allow-host. Flags override the config file.
            """
        )

        @Option(name: .long, help: "Config file (YAML); see config/eddy.yaml.")
        var config: String?

        @Option(name: .long, help: "Address to listen on, host:port. (default: 127.0.0.1:8080)")
        var listen: String?

        @Option(name: .long, help: "Cache directory. (default: ./cache)")
        var cacheDir: String?

        @Option(name: .long, help: ArgumentHelp("Origin for plain paths: URL, or /prefix=URL. Repeatable.", valueName: "url"))
        var origin: [String] = []

        @Option(name: .long, help: ArgumentHelp("Host glob the URL-prefix and forward forms may fetch from, e.g. '*.example.com' or 'cdn.example.com:8443'. Repeatable.", valueName: "pattern"))
        var allowHost: [String] = []

        @Option(name: .long, help: ArgumentHelp("A name the admin listener answers to besides loopback, IP addresses and its own address (DNS rebinding protection). Repeatable.", valueName: "name"))
        var adminHost: [String] = []

        @Option(name: .long, help: ArgumentHelp("A parent proxy every upstream fetch goes through, chosen per cache key by consistent hash: http://HOST:PORT. Repeatable.", valueName: "url"))
        var parent: [String] = []

        @Option(name: .long, help: ArgumentHelp("An address or CIDR of an edge this node is a parent of: its absolute-form requests may name mapped origins. Repeatable.", valueName: "cidr"))
        var child: [String] = []

        @Option(name: .long, help: "This node's pseudonym in Via and Cache-Status; each node of a cluster needs its own. (default: eddy)")
        var name: String?

        @Option(name: .long, help: "Largest cache size, with K/M/G/T suffix (binary); 0 = unbounded. (default: 10G)")
        var maxSize: String?

        @Option(name: .long, help: "Memory for small (up to 64 KiB) cached bodies served without a disk read, with K/M/G suffix; 0 = off. (default: 32M)")
        var memoryCache: String?

        @Option(name: .long, help: "Access log file; '-' is stderr, 'off' disables. (default: -)")
        var accessLog: String?

        @Option(name: .long, help: "Freshness lifetime in seconds for responses with no Cache-Control, Expires or Last-Modified; a deliberate override of RFC 9111's heuristic. (default: 0)")
        var defaultTtl: Int?

        @Option(name: .long, help: "Admin listener (API, /metrics, dashboard), host:port. Off unless set.")
        var admin: String?

        @Option(name: .long, help: "Bearer token the admin listener requires; needed when it is not on loopback. EDDY_ADMIN_TOKEN also sets it (and keeps it out of the process list).")
        var adminToken: String?

        @Option(name: .long, help: "HLS: media segments to prefetch after the one a player takes; 0 turns prefetch off. (default: 3)")
        var prefetchSegments: Int?

        @Flag(name: .long, help: "HLS: keep AES-128 keys in the cache (by default they are always fetched from the origin).")
        var cacheKeys = false

        @Flag(name: .long, help: "Forward an origin's 103 Early Hints to HTTP/1.1 clients (off: ffmpeg and mpv hang on them).")
        var earlyHints = false

        @Option(name: .long, help: "Seconds a client has from the first byte of a request to the end of its headers. (default: 10)")
        var headerTimeout: Int?

        @Option(name: .long, help: "Seconds to connect to an origin, including the wait for a free connection slot. (default: 10)")
        var connectTimeout: Int?

        @Option(name: .long, help: "Seconds an upstream transfer may go without receiving a byte before it is cut. (default: 30)")
        var stallTimeout: Int?

        @Option(name: .long, help: "Seconds a request for a download's stored copy waits on a silent origin before it is answered from disk. (default: 1.5)")
        var offlineWait: Double?

        @Option(name: .long, help: "Bytes a second for all downloads together, like 4M (players are never capped). (default: no limit)")
        var downloadRateLimit: String?

        @Option(name: .long, help: "Connections per origin host. (default: 16)")
        var maxUpstreamPerHost: Int?

        @Option(name: .long, help: "CA bundle (PEM) to verify HTTPS origins with, instead of the system's.")
        var caFile: String?

        @Option(name: .long, help: "Event loops serving clients, one thread each; 'auto' is one per core. (default: auto)")
        var workers: String?

        @Option(name: .long, help: "Diagnostics level: trace, debug, info, notice, warning, error. (default: info)")
        var logLevel: String?

        @Option(name: .long, help: "Diagnostics on stderr: text, or json (one object per line). (default: text)")
        var logFormat: String?

        @Option(name: .long, help: "Access log lines: combined, or json (adds the cache key and the upstream time). (default: combined)")
        var accessLogFormat: String?

        func validate() throws {
            if let maxSize, ByteSize.parse(maxSize) == nil { throw ValidationError("--max-size '\(maxSize)' is not a size such as 512M or 10G") }
            if let memoryCache, ByteSize.parse(memoryCache) == nil { throw ValidationError("--memory-cache '\(memoryCache)' is not a size such as 32M") }
            if let listen { _ = try wrap { try ConfigFile.parseListen(listen) } }
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
            if let admin { c.admin = try ConfigFile.parseListen(admin) }
            // getenv, not ProcessInfo, which copies the whole environment (start-up, issue 33).
            if let t = adminToken ?? getenv("EDDY_ADMIN_TOKEN").map({ String(cString: $0) }), !t.isEmpty { c.adminToken = t }
            if let logLevel { c.logLevel = logLevel }
            if let logFormat { c.logFormat = logFormat }
            if let accessLogFormat { c.accessLogFormat = AccessLog.Format(rawValue: accessLogFormat)! }
            if let caFile { c.upstreamTimeouts.caFile = caFile }
            if let prefetchSegments { c.prefetchSegments = prefetchSegments }
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
}
