import EddyCore

/// What eddy keeps about one version of a resource besides its bytes: the representation's
/// validators and length, and the response headers it replays (RFC 9111 section 3.1).
public struct ResourceMeta: Equatable, Sendable {
    /// Complete length in bytes, nil until known (chunked responses before they end).
    public var length: Int?
    public var etag: String?
    public var lastModified: String?
    public var contentType: String?
    /// Other end-to-end headers replayed on every response (Cache-Control, Expires, Date,
    /// Content-Encoding, Content-Language, Content-Disposition...), as "Name: value" lines.
    public var headers: HTTPHeaders
    /// When the response (or the last 304 refreshing it) was received, epoch seconds
    /// (response_time of RFC 9111 section 4.2.3).
    public var storedAt: Int
    /// The stored response's status: 200 for a representation stored whole or from 206 parts
    /// (the only one ranges apply to); another heuristically cacheable or explicitly fresh final
    /// status (404, 410, 301, 308...; RFC 9111 section 3) is replayed whole with that status.
    public var status: Int

    public init(length: Int?, etag: String?, lastModified: String?, contentType: String?, headers: HTTPHeaders, storedAt: Int,
                status: Int = 200) {
        self.status = status
        self.length = length
        self.etag = etag
        self.lastModified = lastModified
        self.contentType = contentType
        self.headers = headers
        self.storedAt = storedAt
    }

    /// The strong entity tag, if the stored one is strong.
    public var strongETag: EntityTag? {
        guard let e = etag.flatMap(EntityTag.parse), !e.isWeak else { return nil }
        return e
    }

    /// The validator to send in If-Range: a strong ETag, else Last-Modified (RFC 9110 section 13.1.5).
    /// nil means stored parts of this resource can not be safely combined with new ones.
    public var ifRangeValidator: String? { strongETag?.headerValue ?? lastModified }

    /// True when `other` (from a later response) names the same representation: same strong ETag,
    /// or, without ETags, the same Last-Modified (RFC 9111 section 3.4).
    public func sameRepresentation(as other: ResourceMeta) -> Bool {
        if status != other.status { return false }
        if let a = strongETag, let b = other.strongETag { return a.strongMatches(b) }
        if etag != nil || other.etag != nil { return etag == other.etag && strongETag != nil }
        if let a = lastModified, let b = other.lastModified { return a == b }
        return false
    }

    /// Serialized headers for the index.
    var headerText: String { headers.map { "\($0.name): \($0.value)" }.joined(separator: "\n") }

    static func headers(from text: String?) -> HTTPHeaders {
        var h = HTTPHeaders()
        for line in (text ?? "").split(separator: "\n") {
            if let c = line.firstIndex(of: ":") { h.add(String(line[..<c]), String(line[line.index(after: c)...].trimmingOWS())) }
        }
        return h
    }
}
