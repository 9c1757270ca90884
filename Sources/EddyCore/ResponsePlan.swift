/// What a response for a stored representation is made of, planned before a byte is sent: its
/// status, the fields that describe its body, and the body's pieces in order (literal framing
/// bytes, and spans of the representation). Pure: RFC 9110 section 14 and 15.3.7, with the
/// multipart/byteranges framing of RFC 9110 section 14.6.
public struct ResponsePlan: Equatable, Sendable {
    /// A piece of a response body.
    public enum Piece: Equatable, Sendable {
        /// Literal bytes (multipart framing).
        case bytes([UInt8])
        /// Bytes of the representation; `upperBound == Int.max` means "to the end, length unknown".
        case resource(Range<Int>)
    }

    /// 200, 206 or 416.
    public let status: Int
    /// Content-Length, Content-Range, or for multipart the Content-Type with its boundary.
    public let bodyFields: HTTPHeaders
    /// The body, in order; empty for 416.
    public let pieces: [Piece]
    /// True for multipart/byteranges: its Content-Type replaces the representation's.
    public let isMultipart: Bool

    /// A 206's fields for one `span` of a representation of `length` bytes (RFC 9110 section 14.4).
    public static func addSingleRangeFields(_ span: ByteSpan, length: Int, to fields: inout HTTPHeaders) {
        fields.add("Content-Range", ContentRange(span: span, completeLength: length).headerValue)
        fields.add("Content-Length", String(span.count))
    }

    /// The plan for `range` (see `RangePlan`) over a representation of `length` bytes. Multipart
    /// parts carry `contentType` (application/octet-stream when unknown) and are separated by
    /// `boundary`, which the caller makes unique to the representation.
    public static func make(_ range: RangePlan, length: Int, contentType: String?, boundary: String) -> ResponsePlan {
        var fields = HTTPHeaders(capacity: 2)
        switch range {
        case .full:
            fields.add("Content-Length", String(length))
            return ResponsePlan(status: 200, bodyFields: fields, pieces: [.resource(0..<length)], isMultipart: false)
        case let .single(span):
            addSingleRangeFields(span, length: length, to: &fields)
            return ResponsePlan(status: 206, bodyFields: fields, pieces: [.resource(span.range)], isMultipart: false)
        case let .multipart(spans):
            let type = contentType ?? "application/octet-stream"
            var pieces: [Piece] = []
            var total = 0
            for (i, s) in spans.enumerated() {
                let part = Array("\(i == 0 ? "" : "\r\n")--\(boundary)\r\nContent-Type: \(type)\r\nContent-Range: bytes \(s.first)-\(s.last)/\(length)\r\n\r\n".utf8)
                pieces.append(.bytes(part))
                pieces.append(.resource(s.range))
                total += part.count + s.count
            }
            let closing = Array("\r\n--\(boundary)--\r\n".utf8)
            pieces.append(.bytes(closing))
            total += closing.count
            fields.add("Content-Type", "multipart/byteranges; boundary=\(boundary)")
            fields.add("Content-Length", String(total))
            return ResponsePlan(status: 206, bodyFields: fields, pieces: pieces, isMultipart: true)
        case .unsatisfiable:
            fields.add("Content-Range", "bytes */\(length)") // RFC 9110 section 15.5.17
            return ResponsePlan(status: 416, bodyFields: fields, pieces: [], isMultipart: false)
        }
    }
}
