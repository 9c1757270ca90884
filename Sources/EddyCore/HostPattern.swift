/// A host glob from `--allow-host`, optionally with a port: `*.example.com`, `cdn.example.com:8443`,
/// `127.0.0.1:*`. Matching is case-insensitive; `*` matches any run of characters, `?` one.
public struct HostPattern: Equatable, Sendable, CustomStringConvertible {
    /// The host glob, lowercased.
    public let host: String
    /// The port, nil meaning any port.
    public let port: Int?

    /// Parses `host[:port]`; `[v6]:port` brackets are accepted. nil for an empty or malformed pattern.
    public init?(_ text: String) {
        var t = text.trimmingOWS().lowercased()
        guard !t.isEmpty else { return nil }
        var port: Int? = nil
        if t.hasPrefix("[") {
            guard let close = t.firstIndex(of: "]") else { return nil }
            let rest = t[t.index(after: close)...]
            if rest.hasPrefix(":") {
                let p = rest.dropFirst()
                if p != "*" { guard let n = Int(p), (1...65535).contains(n) else { return nil }; port = n }
            } else if !rest.isEmpty { return nil }
            t = String(t[t.index(after: t.startIndex)..<close])
        } else if let colon = t.lastIndex(of: ":"), t.firstIndex(of: ":") == colon {
            let p = t[t.index(after: colon)...]
            if p != "*" { guard let n = Int(p), (1...65535).contains(n) else { return nil }; port = n }
            t = String(t[..<colon])
        }
        guard !t.isEmpty else { return nil }
        self.host = t
        self.port = port
    }

    public var description: String { port.map { "\(host):\($0)" } ?? host }

    /// True when `host` (any case) and `port` match.
    public func matches(host: String, port: Int) -> Bool {
        if let p = self.port, p != port { return false }
        return HostPattern.glob(Array(self.host.utf8), Array(host.lowercased().utf8))
    }

    /// Iterative wildcard match with single-star backtracking: linear in practice, no recursion.
    static func glob(_ p: [UInt8], _ s: [UInt8]) -> Bool {
        var pi = 0, si = 0, star = -1, mark = 0
        while si < s.count {
            if pi < p.count && (p[pi] == UInt8(ascii: "?") || p[pi] == s[si]) { pi += 1; si += 1 }
            else if pi < p.count && p[pi] == UInt8(ascii: "*") { star = pi; mark = si; pi += 1 }
            else if star >= 0 { pi = star + 1; mark += 1; si = mark }
            else { return false }
        }
        while pi < p.count && p[pi] == UInt8(ascii: "*") { pi += 1 }
        return pi == p.count
    }
}
