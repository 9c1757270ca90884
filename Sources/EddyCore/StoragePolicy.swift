/// Which upstream responses a shared cache may store, and which of their headers it replays
/// (RFC 9111 section 3; hop-by-hop fields per RFC 9110 section 7.6.1).
public enum StoragePolicy {
    /// Header fields never stored or forwarded: hop-by-hop ones, and those eddy computes per response.
    public static let notReplayed: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade",
        "proxy-authenticate", "proxy-authorization", "content-length", "content-range", "accept-ranges",
        "age", "set-cookie", "etag", "last-modified", "content-type", "alt-svc",
    ]
    // `Via` and `Cache-Status` are replayed: a parent's entries come first, and this hop adds its
    // own after them (RFC 9110 section 7.6.3; RFC 9211 section 2, nearest the origin first).

    /// Hop-by-hop fields (RFC 9110 section 7.6.1) and those eddy sets itself on a pass-through.
    public static let hopByHop: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade",
        "proxy-authenticate", "proxy-authorization", "via", "cache-status", "alt-svc",
    ]

    /// Why a response is not stored, or nil when it may be. The directives are those of the
    /// first of the `targeted` fields present, else Cache-Control (RFC 9213).
    public static func refusal(status: Int, headers: HTTPHeaders,
                               targeted: [String] = FreshnessPolicy().targetedFields) -> String? {
        let cc = CacheControl.effective(headers, targeted: targeted)
        if let why = statusRefusal(status, cc, hasExpires: headers["Expires"] != nil) { return why }
        if cc.noStore { return "no-store" }
        if cc.isPrivate { return "private" }
        if headers["Set-Cookie"] != nil && !cc.isPublic { return "set-cookie" }
        // Vary: * is never matched by a later request (RFC 9111 section 4.1); other Vary fields
        // select a variant stored under its own key (see `VaryKey`).
        if VaryKey.fields(headers.values("Vary")) == nil { return "vary *" }
        return nil
    }

    /// Final statuses stored only with explicit freshness (RFC 9111 section 3: Expires, max-age,
    /// s-maxage or public), as they are not heuristically cacheable: redirects and client errors.
    /// 5xx other than 501 are never stored, so that an origin's passing failure can not replace a
    /// good copy (stale-if-error serves that instead); 204 is left out as it has no body to store.
    public static let storedWhenExplicitlyFresh: Set<Int> = [302, 303, 307, 400, 403, 409, 451]

    /// Why a response with this status is not stored, or nil. 200 and 206 (parts of a 200) are
    /// the representation itself; other heuristically cacheable statuses (RFC 9110 section
    /// 15.1: 203, 300, 301, 308, 404, 405, 410, 414, 501) are stored whole.
    static func statusRefusal(_ status: Int, _ cc: CacheControl, hasExpires: Bool) -> String? {
        if status == 200 || status == 206 { return nil }
        if status != 204 && Freshness.heuristicallyCacheable.contains(status) { return nil }
        let explicit = cc.maxAge != nil || cc.sMaxAge != nil || cc.isPublic || hasExpires
        if explicit && storedWhenExplicitlyFresh.contains(status) { return nil }
        return "status \(status)"
    }

    /// The headers of `headers` that are replayed from the cache: not hop-by-hop, not computed
    /// by eddy, and not named in `Connection` (RFC 9110 section 7.6.1).
    public static func replayed(_ headers: HTTPHeaders) -> HTTPHeaders {
        var out = HTTPHeaders()
        let named = connectionOptions(headers)
        for (n, v) in headers {
            let lower = n.lowercased()
            if !notReplayed.contains(lower) && !named.contains(lower) { out.add(n, v) }
        }
        return out
    }

    /// The end-to-end fields of a message to forward to the next hop: all but the hop-by-hop
    /// ones (`hopByHop`) and those its `Connection` field names (RFC 9110 section 7.6.1).
    public static func forwarded(_ headers: HTTPHeaders, dropping extra: Set<String> = []) -> HTTPHeaders {
        var out = HTTPHeaders()
        let named = connectionOptions(headers)
        for (n, v) in headers {
            let lower = n.lowercased()
            if !hopByHop.contains(lower) && !named.contains(lower) && !extra.contains(lower) { out.add(n, v) }
        }
        return out
    }

    /// The field names listed in `Connection` (lowercased): hop-by-hop for this message.
    public static func connectionOptions(_ headers: HTTPHeaders) -> Set<String> {
        var out = Set<String>()
        for v in headers.values("Connection") {
            for token in v.split(separator: ",") {
                let t = token.trimmingOWS().lowercased()
                if !t.isEmpty { out.insert(t) }
            }
        }
        return out
    }
}
