/// Which upstream responses a shared cache may store, and which of their headers it replays
/// (RFC 9111 section 3; hop-by-hop fields per RFC 9110 section 7.6.1).
public enum StoragePolicy {
    /// Header fields never stored or forwarded: hop-by-hop ones, and those eddy computes per response.
    public static let notReplayed: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade",
        "proxy-authenticate", "proxy-authorization", "content-length", "content-range", "accept-ranges",
        "age", "via", "cache-status", "set-cookie", "etag", "last-modified", "content-type", "alt-svc",
    ]

    /// Hop-by-hop fields (RFC 9110 section 7.6.1) and those eddy sets itself on a pass-through.
    public static let hopByHop: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade",
        "proxy-authenticate", "proxy-authorization", "via", "cache-status", "alt-svc",
    ]

    /// Why a response is not stored, or nil when it may be.
    public static func refusal(status: Int, headers: HTTPHeaders) -> String? {
        guard status == 200 || status == 206 else { return "status \(status)" }
        let cc = CacheControl.parse(headers.combined("Cache-Control"))
        if cc.noStore { return "no-store" }
        if cc.isPrivate { return "private" }
        if headers["Set-Cookie"] != nil && !cc.isPublic { return "set-cookie" }
        if let vary = headers.combined("Vary") {
            // eddy never sends Accept-Encoding upstream, so every client gets the identity bytes;
            // any other Vary would need a key per variant, which eddy does not keep.
            let fields = vary.split(separator: ",").map { $0.trimmingOWS().lowercased() }
            if fields.contains(where: { $0 != "accept-encoding" }) { return "vary" }
        }
        return nil
    }

    /// The headers of `headers` that are replayed from the cache.
    public static func replayed(_ headers: HTTPHeaders) -> HTTPHeaders {
        var out = HTTPHeaders()
        for (n, v) in headers where !notReplayed.contains(n.lowercased()) { out.add(n, v) }
        return out
    }
}
