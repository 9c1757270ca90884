/// Checks an upstream 206 against what was asked before any of it is stored (RFC 9110 section
/// 14.4: a recipient must not combine a Content-Range it cannot trust; cf. Varnish VRG_CheckBo).
public enum RangeResponseCheck {
    /// What eddy asked for.
    public enum Asked: Equatable, Sendable {
        /// `bytes=first-` or `bytes=first-last` (last inclusive, nil for open).
        case span(first: Int, last: Int?)
        /// `bytes=-n`.
        case suffix(Int)
    }

    /// A verified partial response.
    public struct Verified: Equatable, Sendable {
        public let span: ByteSpan
        public let completeLength: Int
    }

    /// Returns the verified span, or a reason to reject the response: a Content-Range that is
    /// invalid, contradicts the stored length or the body's own length, or does not hold the
    /// first byte asked for.
    public static func verify(asked: Asked, contentRange: String?, contentLength: Int?, knownLength: Int?) -> Result<Verified, RejectReason> {
        guard let cr = contentRange.flatMap(ContentRange.parse), let span = cr.span else {
            return .failure(RejectReason("206 without a valid Content-Range"))
        }
        guard let complete = cr.completeLength else { return .failure(RejectReason("206 with unknown complete length")) }
        if let knownLength, knownLength != complete {
            return .failure(RejectReason("complete length \(complete) differs from stored \(knownLength)"))
        }
        if let contentLength, contentLength != span.count {
            return .failure(RejectReason("Content-Length \(contentLength) does not match Content-Range \(span.first)-\(span.last)"))
        }
        // The first byte eddy needs: an answer that holds it makes progress. RFC 9110 section
        // 15.3.7 lets a server send other ranges than those asked for; a consistent one (the
        // checks above) that holds this byte is stored as it came, whatever its extent.
        let wanted: Int
        switch asked {
        case let .span(first, _): wanted = first
        case let .suffix(n): wanted = Swift.max(0, complete - n)
        }
        guard span.first <= wanted, span.last >= wanted else {
            let what: String
            switch asked {
            case let .span(first, last): what = "\(first)-\(last.map(String.init) ?? "")"
            case let .suffix(n): what = "-\(n)"
            }
            return .failure(RejectReason("asked \(what), got \(span.first)-\(span.last)/\(complete)"))
        }
        return .success(Verified(span: span, completeLength: complete))
    }

    /// Why a 206 was rejected.
    public struct RejectReason: Error, Equatable, CustomStringConvertible {
        public let description: String
        public init(_ d: String) { description = d }
    }
}
