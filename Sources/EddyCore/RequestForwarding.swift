/// Which of a client's request fields travel upstream (RFC 9110 section 7.6.1: never hop-by-hop
/// ones, nor those the request's `Connection` names), and the client chain eddy adds
/// (`X-Forwarded-For`, and `Forwarded` of RFC 7239).
public enum RequestForwarding {
    /// Fields eddy never passes on: hop-by-hop, framing (curl frames the upstream request),
    /// `Host` (the upstream URL's), `Via` (eddy writes its own), and the client chain (rebuilt).
    static let neverForwarded: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade",
        "proxy-authorization", "proxy-authenticate", "host", "content-length", "expect", "via",
        "x-forwarded-for", "forwarded", "user-agent",
    ]

    /// Fields a cache fill does not take from the client: eddy controls the range and the
    /// conditionals (one fill serves many clients), asks for identity bytes (every client gets
    /// the stored ones), and sends no client cache directives (a fill is the cache's request).
    static let controlledByFills: Set<String> = [
        "range", "if-range", "if-match", "if-none-match", "if-modified-since", "if-unmodified-since",
        "accept-encoding", "cache-control", "pragma", "authorization",
    ]

    /// The end-to-end fields of a client's request to send on a pass-through request.
    public static func passThrough(_ h: HTTPHeaders) -> HTTPHeaders { filter(h, dropping: neverForwarded) }

    /// Fields by which a front proxy tells an origin how the request looked before it (the
    /// `X-Forwarded-` family other than `-For`, which eddy rebuilds, and the usual rewrites and
    /// method overrides). Origins and frameworks build URLs, redirects and whole pages from them,
    /// and none of them is in the cache key: from a client that is not a trusted proxy, a shared
    /// fill carrying them would let one viewer choose the body every other viewer gets (web cache
    /// poisoning, as the probe of issue 57 found for each of these).
    static let unkeyedOverrides: Set<String> = [
        "x-host", "x-original-url", "x-rewrite-url", "x-original-host", "x-http-method-override", "x-http-method",
        "x-method-override",
    ]

    /// True for a field a fill drops unless the client is a trusted proxy.
    static func isUnkeyedOverride(_ lower: String) -> Bool {
        lower.hasPrefix("x-forwarded-") || unkeyedOverrides.contains(lower)
    }

    /// The end-to-end fields of a client's request a cache fill carries (Referer, Origin,
    /// Accept-Language, custom tokens...). A fill is shared: later clients read what the first
    /// one's fields fetched. So the fields that rewrite what an origin thinks it was asked
    /// (`isUnkeyedOverride`) travel only from a trusted proxy, and `Cookie` only as `cookies`
    /// allows (stripped by default).
    public static func fill(_ h: HTTPHeaders, peerTrusted: Bool = false, cookies: CookiePolicy = .strip) -> HTTPHeaders {
        var out = filter(h, dropping: droppedByFills) { peerTrusted || !isUnkeyedOverride($0) }
        // Several Cookie lines are one list joined by "; " (RFC 6265 section 5.4), not ", ".
        let lines = h.values("Cookie")
        if let cookie = cookies.fillValue(lines.isEmpty ? nil : lines.joined(separator: "; ")) { out.set("Cookie", cookie) }
        return out
    }

    private static let droppedByFills = neverForwarded.union(controlledByFills).union(["cookie"])

    private static func filter(_ h: HTTPHeaders, dropping: Set<String>, keeping: (String) -> Bool = { _ in true }) -> HTTPHeaders {
        let named = StoragePolicy.connectionOptions(h)
        var out = HTTPHeaders()
        for (n, v) in h {
            let lower = n.lowercased()
            if !dropping.contains(lower) && !named.contains(lower) && keeping(lower) { out.add(n, v) }
        }
        return out
    }

    /// The `X-Forwarded-For` value to send: the incoming chain when the peer is a trusted proxy,
    /// then the peer.
    public static func xForwardedFor(incoming: String?, peer: String, peerTrusted: Bool) -> String {
        guard peerTrusted, let incoming, !incoming.trimmingOWS().isEmpty else { return peer }
        return incoming.trimmingOWS() + ", " + peer
    }

    /// The `Forwarded` value to send (RFC 7239 section 4): the incoming elements when the peer is
    /// trusted, then `for=` the peer (an IPv6 address quoted and bracketed, section 6) with the
    /// protocol the client used.
    public static func forwarded(incoming: String?, peer: String, proto: String, peerTrusted: Bool) -> String {
        let node = peer.contains(":") ? "\"[\(peer)]\"" : peer
        let mine = "for=\(node);proto=\(proto)"
        guard peerTrusted, let incoming, !incoming.trimmingOWS().isEmpty else { return mine }
        return incoming.trimmingOWS() + ", " + mine
    }
}
