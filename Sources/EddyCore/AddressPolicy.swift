/// Classifies IP addresses so the URL-prefix and forward forms cannot be used to reach the machine
/// itself or its private networks (server-side request forgery), unless the operator allowed a host
/// explicitly. Checked on the literal host and again on the address curl actually connects to.
public enum AddressPolicy {
    /// True when the address is loopback, private, link-local, unspecified, shared (CGNAT),
    /// multicast or broadcast: anything that is not a public unicast address.
    public static func isInternal(ipv4 a: [UInt8]) -> Bool {
        guard a.count == 4 else { return true }
        switch a[0] {
        case 0, 10, 127: return true                       // this network, RFC 1918, loopback
        case 100: return a[1] & 0xC0 == 64                  // 100.64/10 shared address space (RFC 6598)
        case 169: return a[1] == 254                        // link-local (RFC 3927)
        case 172: return a[1] & 0xF0 == 16                  // 172.16/12 (RFC 1918)
        case 192: return a[1] == 168 || (a[1] == 0 && a[2] == 0) // 192.168/16, 192.0.0/24
        case 198: return a[1] & 0xFE == 18                  // 198.18/15 benchmarking
        default: return a[0] >= 224                         // multicast, reserved, broadcast
        }
    }

    /// IPv6: loopback, unspecified, link-local fe80::/10, unique-local fc00::/7, multicast ff00::/8,
    /// and IPv4-mapped/compatible addresses judged by their IPv4 part.
    public static func isInternal(ipv6 a: [UInt8]) -> Bool {
        guard a.count == 16 else { return true }
        if a[0..<10].allSatisfy({ $0 == 0 }) {
            if a[10] == 0xFF && a[11] == 0xFF { return isInternal(ipv4: Array(a[12..<16])) }
            if a[10] == 0 && a[11] == 0 { return true } // ::, ::1 and deprecated IPv4-compatible
        }
        // ::ffff:0:0/96 (IPv4-translated, RFC 2765) also names an IPv4 host.
        if a[0..<8].allSatisfy({ $0 == 0 }) && a[8] == 0xFF && a[9] == 0xFF && a[10] == 0 && a[11] == 0 {
            return isInternal(ipv4: Array(a[12..<16]))
        }
        // 64:ff9b::/96 (NAT64, RFC 6052) and 2002::/16 (6to4, RFC 3056) carry an IPv4 address that
        // a gateway may forward to: judge them by it.
        if a[0] == 0 && a[1] == 0x64 && a[2] == 0xFF && a[3] == 0x9B && a[4..<12].allSatisfy({ $0 == 0 }) {
            return isInternal(ipv4: Array(a[12..<16]))
        }
        if a[0] == 0x20 && a[1] == 0x02 { return isInternal(ipv4: Array(a[2..<6])) }
        if a[0] == 0xFE && a[1] & 0xC0 == 0x80 { return true }
        if a[0] == 0xFE && a[1] & 0xC0 == 0xC0 { return true } // deprecated site-local fec0::/10
        if a[0] & 0xFE == 0xFC { return true }
        return a[0] == 0xFF
    }

    /// Parses a dotted-quad IPv4 literal.
    public static func parseIPv4(_ s: String) -> [UInt8]? {
        let parts = s.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var out: [UInt8] = []
        for p in parts {
            guard !p.isEmpty, p.count <= 3, let v = UInt8(p) else { return nil }
            out.append(v)
        }
        return out
    }

    /// True when `host` is a literal IP address that is internal, or a name that always means this
    /// machine (`localhost`, `*.localhost`, RFC 6761). Other names are checked after resolution.
    /// An IPv6 literal is judged by its bytes, whatever its spelling (`[0:0:0:0:0:0:0:1]`,
    /// `[::127.0.0.1]`, `[::1%25lo]`); text with a colon that is not IPv6 is refused as internal.
    public static func isInternalLiteral(host: String) -> Bool {
        let h = host.lowercased()
        if h == "localhost" || h.hasSuffix(".localhost") || h == "localhost." || h.hasSuffix(".localhost.") { return true }
        if let internalAddress = isInternal(address: h) { return internalAddress }
        // Text with a colon or a zone that is not an IPv6 address is refused as internal.
        return h.utf8.contains(UInt8(ascii: ":")) || h.utf8.contains(UInt8(ascii: "%"))
    }

    /// For an IPv4 (dotted quad) or IPv6 address in text: whether it is internal; nil when the text
    /// is not an address.
    public static func isInternal(address text: String) -> Bool? {
        if let v4 = parseIPv4(text) { return isInternal(ipv4: v4) }
        if let v6 = IPv6Address.parse(text) { return isInternal(ipv6: v6) }
        return nil
    }
}
