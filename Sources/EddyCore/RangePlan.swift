/// What to answer for a GET/HEAD with an optional `Range`, once the representation's length is known.
///
/// Mirrors RFC 9110: 206 with one part for one satisfiable range (section 15.3.7, never multipart
/// for one range), multipart/byteranges for several, 416 when none is satisfiable (section 15.5.17),
/// and 200 when the header is absent or ignored.
public enum RangePlan: Equatable, Sendable {
    /// 200 with the whole representation.
    case full
    /// 206 with a single part.
    case single(ByteSpan)
    /// 206 multipart/byteranges; the spans are coalesced and ascending.
    case multipart([ByteSpan])
    /// 416 with `Content-Range: bytes */length`.
    case unsatisfiable

    /// Most bytes that multipart parts may add up to, relative to the length, before eddy answers
    /// 200 instead: overlapping ranges must not turn one object into many (RFC 9110 section 14.2).
    public static let multipartAmplification = 2

    /// Plans the response for `header` against `length` bytes.
    public static func make(_ header: RangeHeader?, length: Int) -> RangePlan {
        guard case let .bytes(specs)? = header else { return .full }
        var spans = specs.compactMap { $0.resolve(length: length) }
        if spans.isEmpty {
            // For an empty representation a non-zero suffix-range is satisfiable (RFC 9110 section
            // 14.1.2), so 416 would be wrong; there is no byte to send in a 206, so ignore the Range.
            let nonZeroSuffix = specs.contains { if case let .suffix(n) = $0 { return n > 0 } else { return false } }
            return length == 0 && nonZeroSuffix ? .full : .unsatisfiable
        }
        if spans.count == 1 { return .single(spans[0]) }
        // Coalesce overlapping or adjacent spans; a client asking for the same bytes twice gets them once.
        // Saturating sums: a stored length may be as large as a saturated Content-Length (Int.max),
        // and each part may be that long (found by the FuzzRange harness).
        let requested = spans.reduce(0) { sum, s in sum.addingReportingOverflow(s.count).overflow ? Int.max : sum + s.count }
        spans.sort { $0.first < $1.first }
        var merged: [ByteSpan] = []
        for s in spans {
            if let last = merged.last, s.first <= last.last + 1 {
                merged[merged.count - 1] = ByteSpan(first: last.first, last: Swift.max(last.last, s.last))
            } else {
                merged.append(s)
            }
        }
        let (limit, overflow) = Swift.max(length, 1).multipliedReportingOverflow(by: multipartAmplification)
        if !overflow && requested > limit { return .full }
        if merged.count == 1 { return .single(merged[0]) }
        return .multipart(merged)
    }
}
