/// An address or a CIDR block (`10.0.0.0/8`, `fd00::/8`, `192.0.2.7`), matched against a peer's
/// address as evhttp reports it: which clients are a parent's children (`children:`).
public struct AddressRange: Equatable, Sendable {
    let bytes: [UInt8]
    let prefix: Int

    /// nil when `text` is neither an IPv4 nor an IPv6 address, with an optional /length in range.
    public init?(_ text: String) {
        let parts = text.trimmingOWS().split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let first = parts.first, let b = AddressRange.parse(String(first)) else { return nil }
        var n = b.count * 8
        if parts.count == 2 {
            guard let p = Int(parts[1]), p >= 0, p <= n else { return nil }
            n = p
        }
        (bytes, prefix) = (b, n)
    }

    /// Whether `address` (a peer's address; IPv4-mapped IPv6 counts as IPv4) is in the range.
    public func contains(_ address: String) -> Bool {
        guard var a = AddressRange.parse(address) else { return false }
        if a.count == 16 && bytes.count == 4 && a[0..<10].allSatisfy({ $0 == 0 }) && a[10] == 0xff && a[11] == 0xff {
            a = Array(a[12...])
        }
        guard a.count == bytes.count else { return false }
        var left = prefix
        for i in bytes.indices where left > 0 {
            let bits = Swift.min(8, left)
            let mask = UInt8(truncatingIfNeeded: 0xff << (8 - bits))
            if a[i] & mask != bytes[i] & mask { return false }
            left -= bits
        }
        return true
    }

    private static func parse(_ s: String) -> [UInt8]? {
        var t = s
        if t.hasPrefix("[") && t.hasSuffix("]") { t = String(t.dropFirst().dropLast()) }
        return AddressPolicy.parseIPv4(t) ?? IPv6Address.parse(t)
    }
}
