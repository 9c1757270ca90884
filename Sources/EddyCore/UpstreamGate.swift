/// The one check every upstream fetch passes, whoever starts it: a client's request, a segment
/// prefetch, a revalidation, a resumed fill, a download job. It is applied where transfers are
/// created (`CurlMulti`), so no code path can fetch a URL the operator did not allow.
///
/// A URL may be fetched when it lies under a mapped origin's base (the operator named that origin,
/// internal or not), or when its host matches `--allow-host`. A wildcard match may not reach an
/// internal address: literal addresses are refused here, and `checkAddress` asks the fetcher to
/// refuse internal addresses again after DNS (on the address it connects to).
public struct UpstreamGate: Sendable {
    /// Mapped origins.
    public let routes: [OriginRoute]
    /// Hosts the URL-prefix and forward forms may reach.
    public let allowHosts: [HostPattern]

    /// The gate's answer for one URL.
    public enum Verdict: Equatable, Sendable {
        /// Fetch it; with `checkAddress`, refuse internal addresses after resolution.
        case allow(checkAddress: Bool)
        /// Do not fetch it, with a one-line reason.
        case refuse(String)
    }

    public init(routes: [OriginRoute], allowHosts: [HostPattern]) {
        self.routes = routes
        self.allowHosts = allowHosts
    }

    /// Whether `url` may be fetched, and how.
    public func check(_ url: UpstreamURL) -> Verdict {
        if isUnderRoute(url) { return .allow(checkAddress: false) }
        return checkAllowList(url)
    }

    /// The `--allow-host` half of the gate: what the URL-prefix and forward forms may reach.
    public func checkAllowList(_ url: UpstreamURL) -> Verdict {
        var matched = false, explicit = false
        for p in allowHosts where p.matches(host: url.host, port: url.port) {
            matched = true
            // A pattern without wildcards in its host names this host on purpose; only then may it be internal.
            if !p.host.utf8.contains(UInt8(ascii: "*")) && !p.host.utf8.contains(UInt8(ascii: "?")) { explicit = true }
        }
        guard matched else { return .refuse("host \(url.host) is not allowed (see --allow-host)") }
        if !explicit && AddressPolicy.isInternalLiteral(host: url.host) {
            return .refuse("target \(url.host) is a loopback, private or link-local address")
        }
        return .allow(checkAddress: !explicit)
    }

    /// True when `url` is on a mapped origin (same scheme, host and port) at or below its base path,
    /// after dot segments are resolved.
    public func isUnderRoute(_ url: UpstreamURL) -> Bool {
        for route in routes where route.base.host == url.host && route.base.port == url.port && route.base.scheme == url.scheme {
            var base = route.base.pathAndQuery
            if case let .success(normalized) = PathNormalizer.normalize(base) { base = normalized }
            if !base.hasSuffix("/") { base += "/" }
            if base == "/" { return true }
            guard case let .success(path) = PathNormalizer.normalize(url.pathAndQuery) else { continue }
            if path.hasPrefix(base) || path + "/" == base || path.hasPrefix(base.dropLast() + "?") { return true }
        }
        return false
    }
}
