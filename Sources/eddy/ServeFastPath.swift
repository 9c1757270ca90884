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

    /// Every option of `Serve`, by its long name. A list, not a dictionary or set: a generic
    /// hashed collection's first use at run time costs a scan of every protocol-conformance record
    /// (its `Hashable` requirement), 3% of a start (perf), more than 29 comparisons.
    static let options: [(name: String, kind: Kind)] = [
        ("config", .single), ("listen", .single), ("cache-dir", .single), ("origin", .repeating), ("allow-host", .repeating),
        ("admin-host", .repeating), ("parent", .repeating), ("child", .repeating), ("name", .single), ("max-size", .single),
        ("memory-cache", .single), ("access-log", .single), ("default-ttl", .single), ("admin", .single), ("admin-token", .single),
        ("prefetch-segments", .single), ("cache-keys", .flag), ("early-hints", .flag), ("header-timeout", .single),
        ("connect-timeout", .single), ("stall-timeout", .single), ("offline-wait", .single), ("download-rate-limit", .single),
        ("max-upstream-per-host", .single), ("ca-file", .single), ("workers", .single), ("log-level", .single),
        ("log-format", .single), ("access-log-format", .single),
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
            guard let kind = Self.options.first(where: { $0.name == name })?.kind else { return nil }
            if kind != .repeating {
                if seen.contains(name) { return nil }
                seen.append(name)
            }
            if kind == .flag {
                guard inline == nil, setFlag(name, in: &parsed) else { return nil }
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
            guard !value.isEmpty, !value.hasPrefix("-"), set(name, value, in: &parsed) else { return nil }
        }
        return parsed
    }

    /// Stores an option's value as ArgumentParser would (`Int(_:)` and `Double(_:)` are what its
    /// `ExpressibleByArgument` conformances call); false when it would not take it.
    private static func set(_ name: String, _ value: String, in o: inout ServeOptions) -> Bool {
        switch name {
        case "config": o.config = value
        case "listen": o.listen = value
        case "cache-dir": o.cacheDir = value
        case "origin": o.origin.append(value)
        case "allow-host": o.allowHost.append(value)
        case "admin-host": o.adminHost.append(value)
        case "parent": o.parent.append(value)
        case "child": o.child.append(value)
        case "name": o.name = value
        case "max-size": o.maxSize = value
        case "memory-cache": o.memoryCache = value
        case "access-log": o.accessLog = value
        case "default-ttl": guard let v = Int(value) else { return false }; o.defaultTtl = v
        case "admin": o.admin = value
        case "admin-token": o.adminToken = value
        case "prefetch-segments": guard let v = Int(value) else { return false }; o.prefetchSegments = v
        case "header-timeout": guard let v = Int(value) else { return false }; o.headerTimeout = v
        case "connect-timeout": guard let v = Int(value) else { return false }; o.connectTimeout = v
        case "stall-timeout": guard let v = Int(value) else { return false }; o.stallTimeout = v
        case "offline-wait": guard let v = Double(value) else { return false }; o.offlineWait = v
        case "download-rate-limit": o.downloadRateLimit = value
        case "max-upstream-per-host": guard let v = Int(value) else { return false }; o.maxUpstreamPerHost = v
        case "ca-file": o.caFile = value
        case "workers": o.workers = value
        case "log-level": o.logLevel = value
        case "log-format": o.logFormat = value
        case "access-log-format": o.accessLogFormat = value
        default: return false
        }
        return true
    }

    private static func setFlag(_ name: String, in o: inout ServeOptions) -> Bool {
        switch name {
        case "cache-keys": o.cacheKeys = true
        case "early-hints": o.earlyHints = true
        default: return false
        }
        return true
    }
}
