import EddyCore
import Foundation

extension ConfigFile {
    /// `cache_key:`, a list of rules, the first that matches a URL applying:
    ///
    ///     cache_key:
    ///       - { prefix: /cdn/, ignore_query: [Expires, Signature, Key-Pair-Id] }   # a mapped origin
    ///       - { host: "*.akamaized.net", ignore_query: [hdnts] }                   # a host glob
    ///       - { url: "https://media.example.com/vod/", ignore_query: all }         # a URL prefix
    ///
    /// A `prefix` names an origin mapped in the same file (`origins:`); it becomes that origin's
    /// upstream URL, since keys are made of upstream URLs whatever form the client used.
    static func cacheKeyRules(_ value: Any, routes: [OriginRoute]) throws -> CacheKeyRules {
        let key = "cache_key"
        guard let list = value as? [[String: Any]] else {
            throw ConfigError(description: "\(key): expected a list of {prefix | host | url, ignore_query}")
        }
        var rules: [CacheKeyRules.Rule] = []
        for item in list {
            for k in item.keys where !["prefix", "host", "url", "ignore_query"].contains(k) {
                throw ConfigError(description: "\(key): unknown field '\(k)' (prefix, host, url, ignore_query)")
            }
            let ignored: CacheKeyRules.Ignored
            switch item["ignore_query"] {
            case let word as String where word == "all": ignored = .all
            case let names as [Any] where !names.isEmpty && names.allSatisfy({ $0 is String }):
                ignored = .names(Set(names.compactMap { $0 as? String }))
            default: throw ConfigError(description: "\(key): ignore_query must be all or a list of parameter names")
            }
            let (prefix, host) = try ruleScope(item, key, routes: routes)
            rules.append(CacheKeyRules.Rule(prefix: prefix, host: host, ignored: ignored))
        }
        return CacheKeyRules(rules)
    }

    /// The URLs a rule of `key` covers: a `prefix` naming an origin in `origins:` (its upstream
    /// base), a `url` prefix, and/or a `host` pattern; at least one.
    static func ruleScope(_ item: [String: Any], _ key: String, routes: [OriginRoute]) throws -> (prefix: String?, host: HostPattern?) {
        var prefix: String?
        if let p = item["prefix"] {
            guard let p = p as? String, let route = routes.first(where: { $0.prefix == p }) else {
                throw ConfigError(description: "\(key): prefix '\(item["prefix"]!)' is not the prefix of an origin in origins:")
            }
            prefix = route.base.description
        }
        if let u = item["url"] {
            guard prefix == nil, let u = u as? String, let url = UpstreamURL.parse(Substring(u)) else {
                throw ConfigError(description: "\(key): url must be an http(s) URL prefix (and not with prefix)")
            }
            prefix = url.description
        }
        var host: HostPattern?
        if let h = item["host"] {
            guard let h = h as? String, let p = HostPattern(h) else { throw ConfigError(description: "\(key): host '\(item["host"]!)' is not a host pattern") }
            host = p
        }
        guard prefix != nil || host != nil else { throw ConfigError(description: "\(key): each rule needs a prefix, a host or a url") }
        return (prefix, host)
    }
}
