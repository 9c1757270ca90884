/// What a fill session was started for.
package enum FillKind: Equatable {
    /// The first request for an uncached URL: the head decides whether the resource is stored.
    case discovery
    /// A conditional request for a stale resource (If-None-Match / If-Modified-Since with a Range).
    case revalidation
    /// Missing bytes of a stored resource (Range with If-Range).
    case range
}
