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

    /// The end-to-end fields of a client's request a cache fill carries (Cookie, Referer, Origin,
    /// Accept-Language, custom tokens...). A fill is shared: later clients read what the first
    /// one's fields fetched.
    public static func fill(_ h: HTTPHeaders) -> HTTPHeaders { filter(h, dropping: droppedByFills) }

    private static let droppedByFills = neverForwarded.union(controlledByFills)

    private static func filter(_ h: HTTPHeaders, dropping: Set<String>) -> HTTPHeaders {
        let named = StoragePolicy.connectionOptions(h)
        var out = HTTPHeaders()
        for (n, v) in h {
            let lower = n.lowercased()
            if !dropping.contains(lower) && !named.contains(lower) { out.add(n, v) }
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
