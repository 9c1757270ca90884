/// Parses IPv6 address text (RFC 4291 section 2.2) into its 16 bytes.
///
/// Every spelling a URL can carry is accepted, because each one reaches the same socket: full and
/// zero-padded groups (`0000::0001`), `::` compression, an embedded dotted quad
/// (`::127.0.0.1`, `::ffff:7f00:1`), and a zone identifier (`fe80::1%25eth0` as RFC 6874 writes it
/// in URLs, or `%eth0`), which is dropped: the zone does not change which kind of address it is.
public enum IPv6Address {
    /// The 16 bytes of `text`, or nil when it is not an IPv6 address.
    public static func parse(_ text: String) -> [UInt8]? {
        var bytes = Array(text.utf8)
        if let pct = bytes.firstIndex(of: UInt8(ascii: "%")) { bytes.removeSubrange(pct...) } // zone id
        guard bytes.count >= 2, bytes.count <= 45 else { return nil }
        var gap: Int? = nil
        for j in 0..<(bytes.count - 1) where bytes[j] == colon && bytes[j + 1] == colon {
            guard gap == nil else { return nil } // one "::" at most; ":::" is caught here too
            gap = j
        }
        let head: [UInt16], tail: [UInt16]
        if let g = gap {
            guard let h = groups(bytes[..<g], last: false), let t = groups(bytes[(g + 2)...], last: true),
                  h.count + t.count <= 7 else { return nil }
            head = h
            tail = t
        } else {
            guard let h = groups(bytes[...], last: true), h.count == 8 else { return nil }
            head = h
            tail = []
        }
        var out: [UInt8] = []
        out.reserveCapacity(16)
        for g in head + Array(repeating: 0, count: 8 - head.count - tail.count) + tail {
            out.append(UInt8(g >> 8))
            out.append(UInt8(g & 0xFF))
        }
        return out
    }

    private static let colon = UInt8(ascii: ":")

    /// Colon-separated hex groups; an empty side of "::" is no groups. When `last`, the final group
    /// may be a dotted quad, which counts as two.
    private static func groups(_ s: ArraySlice<UInt8>, last: Bool) -> [UInt16]? {
        if s.isEmpty { return [] }
        let parts = s.split(separator: colon, omittingEmptySubsequences: false)
        var out: [UInt16] = []
        for (i, p) in parts.enumerated() {
            if last && i == parts.count - 1 && p.contains(UInt8(ascii: ".")) {
                guard let v4 = AddressPolicy.parseIPv4(String(decoding: p, as: UTF8.self)) else { return nil }
                out.append(UInt16(v4[0]) << 8 | UInt16(v4[1]))
                out.append(UInt16(v4[2]) << 8 | UInt16(v4[3]))
                continue
            }
            guard !p.isEmpty, p.count <= 4 else { return nil }
            var v: UInt16 = 0
            for c in p {
                guard let d = HexDigit.value(c) else { return nil }
                v = v << 4 | UInt16(d)
            }
            out.append(v)
        }
        return out.count <= 8 ? out : nil
    }
}
