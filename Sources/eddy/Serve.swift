import ArgumentParser

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

        @Option(name: .long, help: ArgumentHelp("A TLS listener, host:port (HTTPS; needs --tls-cert and --tls-key). Repeatable.", valueName: "host:port"))
        var tlsListen: [String] = []

        @Option(name: .long, help: "The TLS listeners' certificate (PEM; the chain may follow the leaf). SIGHUP reloads it.")
        var tlsCert: String?

        @Option(name: .long, help: "The private key (PEM) of --tls-cert.")
        var tlsKey: String?

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

        @Option(name: .long, help: "Memory for small (under 16 KiB) cached bodies served without a disk read, with K/M/G suffix; 0 = off. (default: 32M)")
        var memoryCache: String?

        @Option(name: .long, help: "Access log file; '-' is stderr, 'off' disables. (default: -)")
        var accessLog: String?

        @Option(name: .long, help: "Freshness lifetime in seconds for responses with no Cache-Control, Expires or Last-Modified; a deliberate override of RFC 9111's heuristic. (default: 0)")
        var defaultTtl: Int?

        @Option(name: .long, help: "Admin listener (API, /metrics, dashboard), host:port. (default: 127.0.0.1:9090)")
        var admin: String?

        @Flag(name: .customLong("no-admin"), help: "No admin listener (admin: off in the config).")
        var noAdmin = false

        @Option(name: .long, help: "Bearer token the admin listener requires; needed when it is not on loopback. EDDY_ADMIN_TOKEN also sets it (and keeps it out of the process list).")
        var adminToken: String?

        @Option(name: .long, help: "HLS: media segments to prefetch after the one a player takes; 0 turns prefetch off. (default: 3)")
        var prefetchSegments: Int?

        @Option(name: .long, help: "How far a response's fills run past the furthest byte it was sent, e.g. 16M; off: to the end of what was asked. (default: 16M)")
        var readahead: String?

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

        /// The decoded values, for `ServeOptions`' checks and start.
        var options: ServeOptions {
            ServeOptions(config: config, listen: listen, tlsListen: tlsListen, tlsCert: tlsCert, tlsKey: tlsKey, cacheDir: cacheDir, origin: origin, allowHost: allowHost,
                         adminHost: adminHost, parent: parent, child: child, name: name, maxSize: maxSize,
                         memoryCache: memoryCache, accessLog: accessLog, defaultTtl: defaultTtl, admin: admin, noAdmin: noAdmin,
                         adminToken: adminToken, prefetchSegments: prefetchSegments, readahead: readahead, cacheKeys: cacheKeys,
                         earlyHints: earlyHints, headerTimeout: headerTimeout, connectTimeout: connectTimeout,
                         stallTimeout: stallTimeout, offlineWait: offlineWait, downloadRateLimit: downloadRateLimit,
                         maxUpstreamPerHost: maxUpstreamPerHost, caFile: caFile, workers: workers, logLevel: logLevel,
                         logFormat: logFormat, accessLogFormat: accessLogFormat)
        }

        func validate() throws { try options.validate() }

        func run() throws { try options.run() }
    }
}
