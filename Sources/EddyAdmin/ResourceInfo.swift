import EddyCache

/// A stored resource as `GET /api/resources` lists it, and, with its range map, as
/// `GET /api/resources/{key}` shows it. Ranges are half-open byte offsets `[start, end)`.
package struct ResourceInfo: Encodable {
    package var summary: ResourceSummary
    /// Cached ranges and the holes between them (up to the length, or to the last cached byte
    /// when the length is unknown); only in the single-resource view.
    var ranges: [[Int]]?
    var holes: [[Int]]?
    var etag: String?

    enum CodingKeys: String, CodingKey {
        case key, url, version, status, length, pinned, ranges, holes, etag, complete
        case cachedBytes = "cached_bytes", lastAccess = "last_access", contentType = "content_type"
    }

    init(_ summary: ResourceSummary) { self.summary = summary }

    /// The detailed view of `r`.
    package init(_ r: CachedResource) {
        summary = CacheStore.summary(r)
        let spans = r.confirmed.ranges
        ranges = spans.map { [$0.lowerBound, $0.upperBound] }
        let end = r.meta.length ?? spans.last?.upperBound ?? 0
        holes = r.confirmed.gaps(in: 0..<end).map { [$0.lowerBound, $0.upperBound] }
        etag = r.meta.etag
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        let s = summary
        try c.encode(s.key, forKey: .key)
        // The key of a response that varies carries its variant after the URL (see VaryKey).
        try c.encode(String(s.key.prefix { $0 != "\u{1}" }), forKey: .url)
        try c.encode(s.version, forKey: .version)
        try c.encode(s.status, forKey: .status)
        try c.encode(s.length, forKey: .length)
        try c.encode(s.bytes, forKey: .cachedBytes)
        try c.encode(s.length.map { s.bytes >= $0 } ?? false, forKey: .complete)
        try c.encode(s.pinned, forKey: .pinned)
        try c.encode(s.lastAccess, forKey: .lastAccess)
        try c.encode(s.contentType, forKey: .contentType)
        try c.encodeIfPresent(etag, forKey: .etag)
        try c.encodeIfPresent(ranges, forKey: .ranges)
        try c.encodeIfPresent(holes, forKey: .holes)
    }
}
