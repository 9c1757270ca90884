/// The header fields of a response served from the cache, composed from what was stored: the
/// replayed origin fields, then the representation's own metadata and validators (kept apart in
/// the index), `Accept-Ranges` and this hop's `Via` after those of the hops before it. A 206 carries the same fields as the 200
/// would (RFC 9110 section 15.3.7). `Age`, this hop's `Cache-Status` entry and the range-specific
/// fields are the response's own and added by the responder.
public enum StoredResponseHeaders {
    /// `replayed` never holds the fields added here (`StoragePolicy.notReplayed`), so they are
    /// appended, not set. `status` is the stored status: only a 200 is served in ranges, so only
    /// a 200 advertises them (an error answer must not, RFC 9110 section 14.3; REDbot flags it),
    /// and not one replayed with the origin's own Content-Range, which is always sent whole.
    public static func compose(replayed: HTTPHeaders, status: Int = 200, contentType: String?, etag: String?, lastModified: String?,
                               via: String) -> HTTPHeaders {
        var h = replayed
        if let contentType { h.add("Content-Type", contentType) }
        if let etag { h.add("ETag", etag) }
        if let lastModified { h.add("Last-Modified", lastModified) }
        if status == 200 && replayed["Content-Range"] == nil { h.add("Accept-Ranges", "bytes") }
        h.add("Via", via)
        return h
    }
}
