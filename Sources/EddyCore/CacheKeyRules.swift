/// Which query parameters are left out of the cache key (`cache_key:` in the config), so that
/// viewers whose signed URLs differ (CloudFront's `Expires`, `Signature` and `Key-Pair-Id`,
/// Akamai's `hdnts`, a `token=`) share one cached copy, as nginx's `proxy_cache_key` and ATS's
/// cachekey plugin let an operator choose. Off by default: it shares content across viewers
/// whose tokens differ. The upstream request still carries the whole URL the client sent (the
/// signature is what lets the fetch through); only the key drops the parameters. Pure.
public struct CacheKeyRules: Equatable, Sendable {
    /// The parameters one rule leaves out.
    public enum Ignored: Equatable, Sendable {
        /// The whole query.
        case all
        /// These names, compared exactly (query parameter names are case-sensitive).
        case names(Set<String>)
    }

    /// One rule: the URLs it covers (`URLScope`) and the parameters it leaves out of their keys.
    public struct Rule: Equatable, Sendable {
        public let scope: URLScope
        public let ignored: Ignored

        public init(prefix: String? = nil, host: HostPattern? = nil, ignored: Ignored) {
            (self.scope, self.ignored) = (URLScope(prefix: prefix, host: host), ignored)
        }
    }

    /// The first rule that matches a URL applies.
    public let rules: [Rule]

    public init(_ rules: [Rule] = []) { self.rules = rules }

    /// The parameters left out of `url`'s key; nil when no rule applies.
    public func ignored(for url: UpstreamURL) -> Ignored? {
        guard !rules.isEmpty else { return nil }
        return rules.first { $0.scope.matches(url) }?.ignored
    }

    /// The cache key of `url`: the URL itself without the parameters its rule leaves out (the
    /// others keep their order; no `?` is left without any). Every place that stores or finds a
    /// resource for a URL (the home a URL belongs to, client requests, prefetch, downloads) goes
    /// through this.
    public func key(for url: UpstreamURL) -> String {
        guard let ignored = ignored(for: url), let q = url.description.firstIndex(of: "?") else { return url.description }
        let head = url.description[..<q]
        switch ignored {
        case .all: return String(head)
        case let .names(names):
            let kept = CacheKeyRules.parameters(of: url.description, after: q).filter {
                !names.contains(String($0.raw)) && !names.contains($0.name)
            }
            return kept.isEmpty ? String(head) : head + "?" + kept.map(\.pair).joined(separator: "&")
        }
    }

    /// The parameters of `url` its rule leaves out of the key, as `name=value` pairs in order:
    /// what identifies one viewer (their signature); empty when no rule applies.
    public func viewerParameters(of url: UpstreamURL) -> [(name: String, pair: Substring)] {
        guard let ignored = ignored(for: url), let q = url.description.firstIndex(of: "?") else { return [] }
        return CacheKeyRules.parameters(of: url.description, after: q).compactMap { p in
            guard !p.pair.isEmpty else { return nil }
            switch ignored {
            case .all: return (p.name, p.pair)
            case let .names(names): return names.contains(p.name) ? (p.name, p.pair) : nil
            }
        }
    }

    /// `target` as the viewer of `viewer` would ask for it: each parameter `target` carries that
    /// its rule leaves out and the viewer's request has too takes the viewer's value. A playlist
    /// stored once for every viewer names segments with the first viewer's signature; each viewer
    /// is served them with its own. Other URLs are returned as they are.
    public func personalize(_ target: UpstreamURL, for viewer: [(name: String, pair: Substring)]) -> UpstreamURL {
        guard !viewer.isEmpty, ignored(for: target) != nil, let q = target.description.firstIndex(of: "?") else { return target }
        let own = Dictionary(viewer.map { ($0.name, $0.pair) }) { first, _ in first }
        var changed = false
        let pairs = CacheKeyRules.parameters(of: target.description, after: q).map { p -> Substring in
            guard let mine = own[p.name], mine != p.pair else { return p.pair }
            changed = true
            return mine
        }
        guard changed else { return target }
        return UpstreamURL.parse(target.description[..<q] + "?" + pairs.joined(separator: "&")) ?? target
    }

    /// The `name=value` pairs of the query that starts after `q` in `url`, in order, empty ones
    /// kept: each with its name as written and decoded.
    static func parameters(of url: String, after q: String.Index) -> [(raw: Substring, name: String, pair: Substring)] {
        url[url.index(after: q)...].split(separator: "&", omittingEmptySubsequences: false).map { pair in
            let raw = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            return (raw, decoded(raw), pair)
        }
    }

    /// A name with its percent-escapes decoded (ASCII only), as a rule names it.
    static func decoded(_ name: Substring) -> String {
        guard name.contains("%") else { return String(name) }
        var out: [UInt8] = []
        var bytes = Array(name.utf8)[...]
        while let b = bytes.first {
            bytes = bytes.dropFirst()
            if b == UInt8(ascii: "%"), bytes.count >= 2, let hi = HexDigit.value(bytes[bytes.startIndex]),
               let lo = HexDigit.value(bytes[bytes.startIndex + 1]) {
                out.append(hi << 4 | lo)
                bytes = bytes.dropFirst(2)
            } else {
                out.append(b)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
