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
        // Written as bytes into one string (one allocation, where interpolation made several):
        // every 206 sends one (RESULTS.md, issue 33, twelfth part).
        String(unsafeUninitializedCapacity: 68) { buf in // "bytes " and two numbers of 20 with "-" and "/"
            var i = 0
            func byte(_ c: UInt8) { buf[i] = c; i += 1 }
            func number(_ n: Int) {
                if n < 0 { byte(0x2D) }
                var v = n.magnitude, start = i
                repeat { byte(UInt8(truncatingIfNeeded: v % 10) + 0x30); v /= 10 } while v > 0
                var end = i - 1
                while start < end { buf.swapAt(start, end); start += 1; end -= 1 } // written backwards
            }
            for c in "bytes ".utf8 { byte(c) }
            if let span { number(span.first); byte(0x2D); number(span.last) } else { byte(0x2A) }
            byte(0x2F)
            if let completeLength { number(completeLength) } else { byte(0x2A) }
            return i
        }
    }
}
