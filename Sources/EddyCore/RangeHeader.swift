/// A parsed `Range` request header (RFC 9110 section 14.2).
///
/// Parsing is separate from resolving: the parser does not know the representation's length,
/// and `RangePlan` turns the specs into a response decision once the length is known.
public enum RangeHeader: Equatable, Sendable {
    /// `Range: bytes=...` with one or more syntactically valid specs.
    case bytes([RangeSpec])
    /// The header is to be ignored, with the reason. An unknown range unit MUST be ignored
    /// (RFC 9110 section 14.2); a byte-range-set with an invalid spec (last < first, junk)
    /// is ignored too, as RFC 7233 section 2.1 required and RFC 9110 section 14.2 permits.
    case ignored(reason: String)

    /// The most specs accepted in one header: more are an amplification risk (RFC 9110 section 14.2
    /// lets a server ignore or reject such sets), so the header is ignored and the client gets 200.
    public static let maxSpecs = 64

    /// Parses a header value; nil input means no header.
    public static func parse(_ value: String?) -> RangeHeader? {
        guard let value else { return nil }
        if let single = parseSingle(value) { return single }
        let trimmed = value.trimmingOWS()
        guard let eq = trimmed.firstIndex(of: "=") else { return .ignored(reason: "no range unit") }
        let unit = trimmed[..<eq].trimmingOWS()
        guard unit.lowercased() == "bytes" else { return .ignored(reason: "unknown range unit") }
        var specs: [RangeSpec] = []
        for rawPart in trimmed[trimmed.index(after: eq)...].split(separator: ",", omittingEmptySubsequences: false) {
            let part = rawPart.trimmingOWS()
            if part.isEmpty { continue } // #rule permits empty list elements (RFC 9110 section 5.6.1)
            guard let spec = parseSpec(part) else { return .ignored(reason: "invalid range-spec \"\(part.prefix(40))\"") }
            specs.append(spec)
            if specs.count > maxSpecs { return .ignored(reason: "more than \(maxSpecs) ranges") }
        }
        return specs.isEmpty ? .ignored(reason: "empty range set") : .bytes(specs)
    }

    /// The form nearly every player sends, one span with no whitespace: `bytes=first-last`,
    /// `bytes=first-` or `bytes=-length`, read straight from the UTF-8 bytes. nil for anything
    /// else (a list, OWS, another unit's case, junk), which the general parser then reads to the
    /// same result it would have given this form. The general parser's substring splits were 5%
    /// of a 16 KiB range hit's time (bench/RESULTS.md).
    static func parseSingle(_ value: String) -> RangeHeader? {
        singleSpec(value).map { .bytes([$0]) }
    }

    /// The span of `length` that `value` asks for, when it is one well-formed satisfiable range
    /// in the plain form players send (`bytes=a-b`, `bytes=a-`, `bytes=-n`); nil for anything
    /// else, which the general parse and `RangePlan` decide (several ranges, whitespace, a range
    /// past the end, an empty representation). No array and no plan: the snapshot hits' fast
    /// path (bench/RESULTS.md, issue 33, twelfth part).
    public static func singleSpan(_ value: String, length: Int) -> ByteSpan? {
        singleSpec(value)?.resolve(length: length)
    }

    private static func singleSpec(_ value: String) -> RangeSpec? {
        let parsed = value.utf8.withContiguousStorageIfAvailable { b -> RangeSpec? in
            guard b.count >= 8, b[0] == 0x62, b[1] == 0x79, b[2] == 0x74, b[3] == 0x65, b[4] == 0x73, b[5] == 0x3D else { return nil }
            var i = 6
            /// 1*DIGIT at `i` (at most 40, as `parseDigits`), saturating; nil when there are none.
            func digits() -> Int?? {
                let start = i
                var v = 0
                while i < b.count, b[i] >= 0x30, b[i] <= 0x39 {
                    let (m, o1) = v.multipliedReportingOverflow(by: 10)
                    let (r, o2) = m.addingReportingOverflow(Int(b[i] - 0x30))
                    v = (o1 || o2) ? Int.max : r
                    i += 1
                }
                if i - start > 40 { return .none } // too long: the general parser decides
                return i == start ? .some(nil) : .some(v)
            }
            guard let first = digits(), i < b.count, b[i] == 0x2D else { return nil }
            i += 1
            guard let last = digits(), i == b.count else { return nil }
            switch (first, last) {
            case let (nil, n?): return .suffix(length: n)
            case let (f?, nil): return .from(first: f, last: nil)
            case let (f?, l?) where l >= f: return .from(first: f, last: l)
            default: return nil
            }
        }
        return parsed ?? nil
    }

    private static func parseSpec(_ s: Substring) -> RangeSpec? {
        guard let dash = s.firstIndex(of: "-") else { return nil }
        let a = s[..<dash], b = s[s.index(after: dash)...]
        if a.isEmpty {
            guard let n = parseDigits(b) else { return nil }
            return .suffix(length: n)
        }
        guard let first = parseDigits(a) else { return nil }
        if b.isEmpty { return .from(first: first, last: nil) }
        guard let last = parseDigits(b), last >= first else { return nil }
        return .from(first: first, last: last)
    }

    /// 1*DIGIT, saturating at Int.max so a huge last-pos still means "to the end".
    public static func parseDigits(_ s: Substring) -> Int? {
        guard !s.isEmpty, s.utf8.count <= 40 else { return nil }
        var v = 0
        for c in s.utf8 {
            guard c >= 48 && c <= 57 else { return nil }
            let (m, o1) = v.multipliedReportingOverflow(by: 10)
            let (r, o2) = m.addingReportingOverflow(Int(c - 48))
            v = (o1 || o2) ? Int.max : r
        }
        return v
    }
}

extension StringProtocol {
    /// Strips optional whitespace (SP and HTAB, RFC 9110 section 5.6.3) from both ends.
    public func trimmingOWS() -> Substring {
        var s = self[...]
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return Substring(s)
    }
}
