import EddyCore

/// The record a URL's own key holds when its responses vary (RFC 9111 section 4.1): no bytes, a
/// status of 0 that no response has, and the fields that select a variant, so a lookup learns
/// from the cache itself (also after a restart) which variant key a request maps to. Squid keeps
/// the same kind of "vary object" under the base key. A marker is evicted like any resource;
/// the variants it led to are then found again by the next discovery.
extension ResourceMeta {
    /// The status a marker has.
    public static let varyMarkerStatus = 0

    /// A marker for responses varying on `fields` (lowercased, sorted, see `VaryKey.fields`).
    public static func varyMarker(fields: [String], storedAt: Int) -> ResourceMeta {
        ResourceMeta(length: 0, etag: nil, lastModified: nil, contentType: nil,
                     headers: HTTPHeaders([("Vary", fields.joined(separator: ", "))]), storedAt: storedAt,
                     status: varyMarkerStatus)
    }

    /// The fields a marker names; nil for a stored response.
    public var varyMarkerFields: [String]? {
        guard status == ResourceMeta.varyMarkerStatus else { return nil }
        return VaryKey.fields(headers.values("Vary")) ?? []
    }
}
