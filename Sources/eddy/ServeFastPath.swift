/// `eddy serve`'s arguments read without ArgumentParser, for the start that matters most.
///
/// ArgumentParser finds `Serve`'s options by reflection: every start built `Serve` twice, walked
/// its 29 property wrappers with `Mirror`, and paid a scan of the binary's ~6,250
/// protocol-conformance records for each new type it asked about, 29% of eddy's CPU from exec to
/// its first answer with 100k cached resources (`perf record`, bench/RESULTS.md, issue 33).
///
/// This reads only the forms whose meaning is certain: `--name value` and `--name=value` for a
/// name `Serve` declares, a flag alone, a single-valued option once, and no value that is empty
/// or begins with `-`. Anything else (help, a typo, a positional argument, a number ArgumentParser
/// would reject) is `nil` and goes to ArgumentParser, whose answers and messages stay the only
/// ones. `ServeFastPathTests` holds it to `Serve`: the same names and kinds as ArgumentParser's own
/// dump of the command, and the same values for thousands of random argument lists.
enum ServeFastPath {
    enum Kind: Equatable {
        /// An option that takes one value, at most once.
        case single
        /// An option that may repeat; its values add up, in order.
        case repeating
        /// A flag: present or not.
        case flag
    }

    /// One option: its long name, its kind, and how it stores a value (false when ArgumentParser
    /// would not take the value: `Int(_:)` and `Double(_:)` are what its `ExpressibleByArgument`
    /// conformances call). A flag's `store` ignores the value.
    struct Option {
        let name: String
        let kind: Kind
        let store: (inout ServeOptions, String) -> Bool

        init(_ name: String, _ kind: Kind = .single, _ store: @escaping (inout ServeOptions, String) -> Void) {
            (self.name, self.kind, self.store) = (name, kind, { o, v in store(&o, v); return true })
        }

        init(_ name: String, int store: @escaping (inout ServeOptions, Int) -> Void) {
            (self.name, kind) = (name, .single)
            self.store = { o, v in Int(v).map { store(&o, $0) } != nil }
        }

        init(_ name: String, double store: @escaping (inout ServeOptions, Double) -> Void) {
            (self.name, kind) = (name, .single)
            self.store = { o, v in Double(v).map { store(&o, $0) } != nil }
        }
    }

    /// Every option of `Serve`, each name written once here. A list, not a dictionary or set: a
    /// generic hashed collection's first use at run time costs a scan of every protocol-conformance
    /// record (its `Hashable` requirement), 3% of a start (perf), more than 29 comparisons.
    static let options: [Option] = [
        Option("config") { $0.config = $1 }, Option("listen") { $0.listen = $1 },
        Option("tls-listen", .repeating) { $0.tlsListen.append($1) }, Option("tls-cert") { $0.tlsCert = $1 }, Option("tls-key") { $0.tlsKey = $1 }, Option("cache-dir") { $0.cacheDir = $1 },
        Option("origin", .repeating) { $0.origin.append($1) }, Option("allow-host", .repeating) { $0.allowHost.append($1) },
        Option("admin-host", .repeating) { $0.adminHost.append($1) }, Option("parent", .repeating) { $0.parent.append($1) },
        Option("child", .repeating) { $0.child.append($1) }, Option("name") { $0.name = $1 },
        Option("max-size") { $0.maxSize = $1 }, Option("memory-cache") { $0.memoryCache = $1 },
        Option("access-log") { $0.accessLog = $1 }, Option("default-ttl", int: { $0.defaultTtl = $1 }),
        Option("admin") { $0.admin = $1 }, Option("admin-token") { $0.adminToken = $1 },
        Option("no-admin", .flag) { o, _ in o.noAdmin = true },
        Option("prefetch-segments", int: { $0.prefetchSegments = $1 }), Option("readahead") { $0.readahead = $1 }, Option("cache-keys", .flag) { o, _ in o.cacheKeys = true },
        Option("early-hints", .flag) { o, _ in o.earlyHints = true }, Option("header-timeout", int: { $0.headerTimeout = $1 }),
        Option("connect-timeout", int: { $0.connectTimeout = $1 }), Option("stall-timeout", int: { $0.stallTimeout = $1 }),
        Option("offline-wait", double: { $0.offlineWait = $1 }), Option("download-rate-limit") { $0.downloadRateLimit = $1 },
        Option("max-upstream-per-host", int: { $0.maxUpstreamPerHost = $1 }), Option("ca-file") { $0.caFile = $1 },
        Option("workers") { $0.workers = $1 }, Option("log-level") { $0.logLevel = $1 }, Option("log-format") { $0.logFormat = $1 },
        Option("access-log-format") { $0.accessLogFormat = $1 },
    ]

    /// The options in `arguments` (those after `serve`), or nil when ArgumentParser must read them.
    static func parse(_ arguments: [String]) -> ServeOptions? {
        var parsed = ServeOptions()
        var seen: [String] = []
        var i = 0
        while i < arguments.count {
            let token = arguments[i]
            i += 1
            guard token.hasPrefix("--"), token.count > 2 else { return nil }
            var name = String(token.dropFirst(2))
            var inline: String?
            if let eq = name.firstIndex(of: "=") {
                inline = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            guard let option = Self.options.first(where: { $0.name == name }) else { return nil }
            if option.kind != .repeating {
                if seen.contains(name) { return nil }
                seen.append(name)
            }
            if option.kind == .flag {
                guard inline == nil else { return nil }
                _ = option.store(&parsed, "")
                continue
            }
            let value: String
            if let inline {
                value = inline
            } else {
                guard i < arguments.count else { return nil }
                value = arguments[i]
                i += 1
            }
            guard !value.isEmpty, !value.hasPrefix("-"), option.store(&parsed, value) else { return nil }
        }
        return parsed
    }
}
