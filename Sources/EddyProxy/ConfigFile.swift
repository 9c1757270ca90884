import EddyCore
import EddyDownloads
import Foundation
import Yams

/// Reads the YAML config file (see config/eddy.yaml for every key) into a `ProxyConfig`.
public enum ConfigFile {
    public struct ConfigError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Applies the settings in `text` on top of `base`. Unknown keys are errors: a typo must not
    /// silently leave a default in place.
    public static func apply(yaml text: String, to base: ProxyConfig) throws -> ProxyConfig {
        var c = base
        guard let root = try Yams.load(yaml: text) else { return c }
        guard let map = root as? [String: Any] else { throw ConfigError(description: "the config file must be a mapping") }
        // Rules naming a mapped origin need the origins first, wherever the file lists them.
        let scoped: Set<String> = ["cache_key", "cookies"]
        for (key, value) in map.filter({ !scoped.contains($0.key) }) + map.filter({ scoped.contains($0.key) }) {
            switch key {
            case "cache_key": c.cacheKeyRules = try cacheKeyRules(value, routes: c.routes)
            case "cookies": c.cookieRules = try cookieRules(value, routes: c.routes)
            case "listen": (c.listenHost, c.listenPort) = try parseListen(string(value, key))
            case "cache_dir": c.cacheDir = try string(value, key)
            case "tls_listen":
                let list = (value as? [Any]) ?? [value]
                c.tlsListens = try list.map { item in
                    let (host, port) = try parseListen(string(item, key))
                    return ListenAddress(host: host, port: port)
                }
            case "tls_cert": c.tlsCert = try string(value, key)
            case "tls_key": c.tlsKey = try string(value, key)
            case "tls_certificates": c.tlsCertificateList = try tlsCertificates(value)
            case "max_size": c.maxSize = try size(value, key)
            case "memory_cache": c.memoryCache = try size(value, key)
            case "origin": c.routes.append(try route(prefix: "/", url: string(value, key)))
            case "origins":
                guard let list = value as? [[String: Any]] else { throw ConfigError(description: "origins: expected a list of {prefix, url}") }
                for item in list {
                    c.routes.append(try route(prefix: (item["prefix"] as? String) ?? "/", url: string(item["url"] as Any, "origins.url")))
                }
            case "name":
                let n = try string(value, key)
                guard ConfigFile.isToken(n) else { throw ConfigError(description: "name: expected a token (letters, digits, -._~ and the like)") }
                c.name = n
            case "parents":
                guard let list = value as? [String] else { throw ConfigError(description: "parents: expected a list of http://HOST:PORT URLs") }
                c.parents = try list.map(ConfigFile.parent)
            case "children":
                guard let list = value as? [String] else { throw ConfigError(description: "children: expected a list of addresses or CIDRs") }
                c.children = try list.map { t in
                    guard let r = AddressRange(t) else { throw ConfigError(description: "children: '\(t)' is not an address or CIDR") }
                    return r
                }
            case "parent_go_direct":
                guard let b = value as? Bool else { throw ConfigError(description: "parent_go_direct: expected true or false") }
                c.parentGoDirect = b
            case "allow_hosts":
                guard let list = value as? [String] else { throw ConfigError(description: "allow_hosts: expected a list of strings") }
                for p in list { c.allowHosts.append(try hostPattern(p)) }
            // YAML reads an unquoted `off` as false.
            case "access_log": c.accessLog = (value as? Bool) == false ? "off" : try string(value, key)
            case "default_ttl": c.defaultTTL = try int(value, key)
            case "forwarded_headers":
                guard let b = value as? Bool else { throw ConfigError(description: "forwarded_headers: expected true or false") }
                c.forwardedHeaders = b
            case "trusted_proxies":
                guard let list = value as? [String] else { throw ConfigError(description: "trusted_proxies: expected a list of addresses") }
                c.trustedProxies = list
            case "heuristic_max": c.freshness.heuristicMax = try int(value, key)
            case "negative_ttl": c.freshness.negativeLifetime = try int(value, key)
            case "serve_stale_on_error": c.freshness.serveStaleOnError = try int(value, key)
            case "targeted_cache_control":
                c.freshness.targetedFields = [try string(value, key), "CDN-Cache-Control"]
            case "admin":
                // `off` (YAML 1.1 reads a bare off as false) turns the listener off.
                if value as? Bool == false || (value as? String)?.lowercased() == "off" {
                    c.admin = nil
                } else {
                    c.admin = try parseListen(string(value, key))
                }
                c.adminChosen = true
            case "admin_token": c.adminToken = try string(value, key)
            case "admin_hosts":
                guard let list = value as? [String], list.allSatisfy({ !$0.isEmpty && !$0.contains("/") && !$0.contains(" ") }) else {
                    throw ConfigError(description: "admin_hosts: expected a list of host names")
                }
                c.adminHosts = list
            case "access_log_format":
                guard let f = AccessLog.Format(rawValue: try string(value, key)) else {
                    throw ConfigError(description: "access_log_format: combined or json")
                }
                c.accessLogFormat = f
            case "log_format":
                let f = try string(value, key)
                guard ["text", "json"].contains(f) else { throw ConfigError(description: "log_format: text or json") }
                c.logFormat = f
            case "log_level":
                let l = try string(value, key)
                guard ["trace", "debug", "info", "notice", "warning", "error", "critical"].contains(l) else {
                    throw ConfigError(description: "log_level: one of trace, debug, info, notice, warning, error, critical")
                }
                c.logLevel = l
            case "max_header_size": c.limits.maxHeaderBytes = try size(value, key)
            case "max_body_size": c.limits.maxBodyBytes = try size(value, key)
            case "max_uri_length": c.limits.maxURILength = try size(value, key)
            case "max_connections": c.limits.maxConnections = try int(value, key)
            case "idle_timeout": c.limits.idleTimeout = try int(value, key)
            case "header_timeout": c.limits.headerTimeout = try int(value, key)
            case "prefetch_segments": c.prefetchSegments = try int(value, key)
            case "readahead": c.readahead = (value as? Bool) == false || "\(value)" == "off" ? nil : try size(value, key)
            case "max_variants": c.maxVariants = try positive(value, key)
            case "allow_connect":
                guard let b = value as? Bool else { throw ConfigError(description: "allow_connect: expected true or false") }
                c.allowConnect = b
            case "connect_ports":
                guard let list = value as? [Int], !list.isEmpty, list.allSatisfy({ (1...65535).contains($0) }) else {
                    throw ConfigError(description: "connect_ports: expected a list of port numbers")
                }
                c.connectPorts = list
            case "connect_idle_timeout": c.connectIdleTimeout = try positive(value, key)
            case "download_concurrency": c.downloadConcurrency = try positive(value, key)
            case "max_parallel_downloads": c.maxParallelDownloads = try positive(value, key)
            case "download_retries": c.downloadRetries = try positive(value, key)
            case "download_rate_limit":
                let text = try (value as? Int).map(String.init) ?? string(value, key)
                guard let n = ByteSize.parse(text) else {
                    throw ConfigError(description: "download_rate_limit: expected bytes a second like 4M or 500K (0: no limit)")
                }
                c.downloadRateLimit = n
            case "download_yield":
                guard let b = value as? Bool else { throw ConfigError(description: "download_yield: expected true or false") }
                c.downloadYield = b
            case "download_window":
                let text = try string(value, key)
                guard text.isEmpty || DownloadWindow.parse(text) != nil else {
                    throw ConfigError(description: "download_window: expected a window of local time like 01:00-06:00 (or \"\" for any time)")
                }
                c.downloadWindow = DownloadWindow.parse(text)
            case "early_hints":
                guard let b = value as? Bool else { throw ConfigError(description: "early_hints: expected true or false") }
                c.earlyHints = b
            case "cache_keys":
                guard let b = value as? Bool else { throw ConfigError(description: "cache_keys: expected true or false") }
                c.cacheKeys = b
            case "ca_file": c.upstreamTimeouts.caFile = try string(value, key)
            case "connect_timeout": c.upstreamTimeouts.connect = try int(value, key)
            case "stall_timeout": c.upstreamTimeouts.stall = try int(value, key)
            case "max_upstream_per_host": c.maxUpstreamPerHost = try int(value, key)
            case "offline_wait":
                let n = (value as? Double) ?? (value as? Int).map(Double.init) ?? (value as? String).flatMap(Double.init)
                guard let n, n > 0, n <= 60 else { throw ConfigError(description: "offline_wait: expected seconds above 0, at most 60 (such as 1.5)") }
                c.offlineWait = n
            case "workers":
                if let word = value as? String, word == "auto" { c.workers = 0; break }
                guard let n = value as? Int, (0...256).contains(n) else {
                    throw ConfigError(description: "workers: expected auto, or a number of event loops from 1 to 256")
                }
                c.workers = n
            default: throw ConfigError(description: "unknown config key '\(key)'")
            }
        }
        try checkTLS(c)
        return c
    }

    /// Reads and applies a file.
    public static func load(path: String, into base: ProxyConfig) throws -> ProxyConfig {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw ConfigError(description: "cannot read config file \(path)")
        }
        do { return try apply(yaml: text, to: base) } catch let e as ConfigError {
            throw ConfigError(description: "\(path): \(e.description)")
        } catch {
            throw ConfigError(description: "\(path): invalid YAML: \(error)")
        }
    }

    /// `host:port`, `[v6]:port` or `:port`.
    public static func parseListen(_ s: String) throws -> (String, Int) {
        guard let colon = s.lastIndex(of: ":"), let port = Int(s[s.index(after: colon)...]), (0...65535).contains(port) else {
            throw ConfigError(description: "listen address '\(s)' is not host:port")
        }
        var host = String(s[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return (host.isEmpty ? "127.0.0.1" : host, port)
    }

    /// `URL` (prefix /) or `/prefix=URL`.
    public static func route(spec: String) throws -> OriginRoute {
        if spec.hasPrefix("/"), let eq = spec.firstIndex(of: "=") {
            return try route(prefix: String(spec[..<eq]), url: String(spec[spec.index(after: eq)...]))
        }
        return try route(prefix: "/", url: spec)
    }

    /// A parent proxy: an http URL of a host and port (a parent is reached in plain HTTP on the
    /// cluster's network; it speaks TLS to origins itself).
    public static func parent(_ text: String) throws -> UpstreamURL {
        guard let u = UpstreamURL.parse(Substring(text.trimmingOWS())), u.scheme == "http", u.pathAndQuery == "/" else {
            throw ConfigError(description: "parent '\(text)' is not an http://HOST:PORT URL")
        }
        return u
    }

    /// An RFC 9110 token (section 5.6.2): what a Via pseudonym and a Cache-Status name may be.
    public static func isToken(_ s: String) -> Bool {
        !s.isEmpty && s.utf8.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || "!#$%&'*+-.^_`|~".utf8.contains(b)
        }
    }

    public static func route(prefix: String, url: String) throws -> OriginRoute {
        guard let u = UpstreamURL.parse(url[...]) else { throw ConfigError(description: "origin '\(url)' is not an http(s) URL") }
        return OriginRoute(prefix: prefix, base: u)
    }

    public static func hostPattern(_ s: String) throws -> HostPattern {
        guard let p = HostPattern(s) else { throw ConfigError(description: "allow-host '\(s)' is not a host pattern") }
        return p
    }

    private static func string(_ v: Any, _ key: String) throws -> String {
        if let s = v as? String { return s }
        if let i = v as? Int { return String(i) }
        throw ConfigError(description: "\(key): expected a string")
    }

    private static func int(_ v: Any, _ key: String) throws -> Int {
        if let i = v as? Int { return i }
        if let s = v as? String, let i = Int(s) { return i }
        throw ConfigError(description: "\(key): expected an integer")
    }

    private static func positive(_ v: Any, _ key: String) throws -> Int {
        let n = try int(v, key)
        guard n >= 1 else { throw ConfigError(description: "\(key): expected at least 1") }
        return n
    }

    private static func size(_ v: Any, _ key: String) throws -> Int {
        if let i = v as? Int { return i }
        if let s = v as? String, let n = ByteSize.parse(s) { return n }
        throw ConfigError(description: "\(key): expected a size such as 512M or 10G")
    }
}
