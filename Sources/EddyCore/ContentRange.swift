/// A `Content-Range` field value (RFC 9110 section 14.4).
public struct ContentRange: Equatable, Sendable {
    /// The bytes enclosed, nil for the unsatisfied form `bytes */N`.
    public let span: ByteSpan?
    /// The complete length, nil when the sender wrote `*`.
    public let completeLength: Int?

    public init(span: ByteSpan?, completeLength: Int?) {
        self.span = span
        self.completeLength = completeLength
    }

    /// Parses `bytes first-last/len`, `bytes first-last/*` or `bytes */len`. Returns nil for anything
    /// invalid, including last < first or a complete length <= last: such a value MUST NOT be combined
    /// with stored content (RFC 9110 section 14.4).
    public static func parse(_ value: String) -> ContentRange? {
        let v = value.trimmingOWS()
        guard v.lowercased().hasPrefix("bytes "), let slash = v.lastIndex(of: "/") else { return nil }
        let rangePart = v[v.index(v.startIndex, offsetBy: 6)..<slash].trimmingOWS()
        let lengthPart = v[v.index(after: slash)...].trimmingOWS()
        var complete: Int? = nil
        if lengthPart != "*" {
            guard let n = RangeHeader.parseDigits(lengthPart), n != Int.max else { return nil }
            complete = n
        }
        if rangePart == "*" {
            guard complete != nil else { return nil }
            return ContentRange(span: nil, completeLength: complete)
        }
        guard let dash = rangePart.firstIndex(of: "-"),
              let first = RangeHeader.parseDigits(rangePart[..<dash]),
              let last = RangeHeader.parseDigits(rangePart[rangePart.index(after: dash)...]),
              last >= first, last != Int.max else { return nil }
        if let complete, complete <= last { return nil }
        return ContentRange(span: ByteSpan(first: first, last: last), completeLength: complete)
    }

    /// The field value as sent.
    public var headerValue: String {
        // Digits appended as bytes (`ResponseHead.appendDecimal`) rather than interpolated:
        // every 206 sends one (RESULTS.md, issue 33, twelfth part).
        var out: [UInt8] = []
        out.reserveCapacity(68) // "bytes " and three numbers of up to 20 with "-" and "/"
        out.append(contentsOf: "bytes ".utf8)
        if let span {
            ResponseHead.appendDecimal(span.first, to: &out)
            out.append(UInt8(ascii: "-"))
            ResponseHead.appendDecimal(span.last, to: &out)
        } else {
            out.append(UInt8(ascii: "*"))
        }
        out.append(UInt8(ascii: "/"))
        if let completeLength { ResponseHead.appendDecimal(completeLength, to: &out) } else { out.append(UInt8(ascii: "*")) }
        return String(decoding: out, as: UTF8.self)
    }
}
