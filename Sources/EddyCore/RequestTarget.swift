/// How a client named the upstream resource: the three URL forms eddy accepts.
public enum RequestForm: String, Sendable {
    /// `GET /movies/a.mp4` under a configured origin prefix.
    case mapped
    /// `GET /https://cdn.example.com/movies/a.mp4`.
    case urlPrefix = "prefix"
    /// `GET http://cdn.example.com/movies/a.mp4 HTTP/1.1` (absolute-form, RFC 9112 section 3.2.2).
    case forward
}

/// The result of routing a request-target.
public enum RequestTarget: Equatable, Sendable {
    /// Fetch `url`; `checkAddress` asks the fetcher to refuse internal addresses after DNS.
    case upstream(url: UpstreamURL, form: RequestForm, checkAddress: Bool)
    /// Refuse with a status and a one-line reason.
    case refused(status: Int, reason: String)
}

/// Maps request-targets to upstream URLs and applies the host policy.
public struct TargetResolver: Sendable {
    /// Mapped origins, longest prefix first.
    public let routes: [OriginRoute]
    /// Hosts the URL-prefix and forward forms may reach.
    public let allowHosts: [HostPattern]
    /// The check every upstream fetch passes; the resolver applies its allow-list half.
    public let gate: UpstreamGate
    /// Query parameters left out of cache keys (`cache_key:`); none by default.
    public let cacheKeys: CacheKeyRules
    /// What fills do with clients' cookies (`cookies:`); stripped by default.
    public let cookies: CookieRules

    public init(routes: [OriginRoute], allowHosts: [HostPattern], cacheKeys: CacheKeyRules = CacheKeyRules(),
                cookies: CookieRules = CookieRules()) {
        self.routes = routes.sorted { $0.prefix.count > $1.prefix.count }
        self.allowHosts = allowHosts
        self.cacheKeys = cacheKeys
        self.cookies = cookies
        gate = UpstreamGate(routes: routes, allowHosts: allowHosts)
    }

    /// The cache key of `url` (see `CacheKeyRules.key`): the one place URLs become keys.
    public func cacheKey(_ url: UpstreamURL) -> String { cacheKeys.key(for: url) }

    /// Routes a request-target as evhttp hands it over (origin-form or absolute-form). A child of
    /// this node (`children:`, an edge whose parent it is) sends the origin's URLs in absolute
    /// form: they pass the whole gate, mapped origins included, as the child's own fetches did.
    public func resolve(_ target: String, child: Bool = false) -> RequestTarget {
        if target.hasPrefix("/http://") || target.hasPrefix("/https://") {
            return resolveAbsolute(target.dropFirst(), form: .urlPrefix)
        }
        if !target.hasPrefix("/") {
            let lower = target.prefix(8).lowercased()
            if lower.hasPrefix("http://") || lower.hasPrefix("https://") { return resolveAbsolute(target[...], form: .forward, child: child) }
            return .refused(status: 400, reason: "request-target is neither a path nor an http(s) URL")
        }
        // Byte counts, not Character counts: this runs on every request, and prefixes and valid
        // targets are ASCII (checked below).
        let targetBytes = target.utf8.count
        for route in routes {
            let prefixBytes = route.prefix.utf8.count
            let rest: String
            if targetBytes >= prefixBytes && target.hasPrefix(route.prefix) {
                rest = prefixBytes == 1 ? target : String(Substring(target.utf8.dropFirst(prefixBytes - 1)))
            } else if targetBytes + 1 == prefixBytes && route.prefix.hasPrefix(target) {
                rest = "/" // `/cdn1` names the route `/cdn1/`
            } else {
                continue
            }
            guard rest.utf8.allSatisfy({ $0 > 32 && $0 < 127 }) else { return .refused(status: 400, reason: "invalid characters in path") }
            // The rest is resolved before it is joined to the base, so it can not climb out of the
            // route (RFC 3986 section 5.2.4). Paths without dots or escapes skip the work.
            var path = rest
            if PathNormalizer.mayNeedNormalizing(rest) {
                switch PathNormalizer.normalize(rest) {
                case let .success(p): path = p
                case let .failure(why): return .refused(status: 400, reason: why.description)
                }
            }
            return .upstream(url: route.base.appending(pathAndQuery: path), form: .mapped, checkAddress: false)
        }
        return .refused(status: 404, reason: "no origin is configured for this path")
    }

    /// The request-target through eddy that fetches `url`, in the URL form a client used; nil when
    /// eddy may not fetch it that way (the URI is then left as the origin wrote it). The result is
    /// checked by routing it forward again, so it always names `url`.
    public func eddyTarget(for url: UpstreamURL, form: RequestForm) -> String? {
        func roundTrips(_ target: String) -> Bool {
            guard case let .upstream(u, _, _) = resolve(target) else { return false }
            if u == url { return true }
            // The mapped form resolves dot segments and unreserved escapes (RFC 3986 section 6.2.2):
            // an equivalent URL names the same resource.
            guard case let .success(p) = PathNormalizer.normalize(url.pathAndQuery) else { return false }
            return u == UpstreamURL(scheme: url.scheme, host: url.host, port: url.port, pathAndQuery: p)
        }
        func mapped() -> String? {
            for route in routes where route.base.hasSameOrigin(as: url) {
                var basePath = route.base.pathAndQuery
                if !basePath.hasSuffix("/") { basePath += "/" }
                guard url.pathAndQuery.hasPrefix(basePath) else { continue }
                let target = route.prefix + url.pathAndQuery.dropFirst(basePath.count)
                if roundTrips(target) { return target }
            }
            return nil
        }
        func prefixed() -> String? {
            let target = "/" + url.description
            return roundTrips(target) ? target : nil
        }
        switch form {
        case .mapped: return mapped() ?? prefixed()
        case .urlPrefix: return prefixed() ?? mapped()
        case .forward: return nil // the player sends every absolute URL through eddy already
        }
    }

    private func resolveAbsolute(_ text: Substring, form: RequestForm, child: Bool = false) -> RequestTarget {
        guard let url = UpstreamURL.parse(text) else { return .refused(status: 400, reason: "malformed upstream URL") }
        switch child ? gate.check(url) : gate.checkAllowList(url) {
        case let .allow(checkAddress): return .upstream(url: url, form: form, checkAddress: checkAddress)
        case let .refuse(reason): return .refused(status: 403, reason: reason)
        }
    }
}
