/// The target of a CONNECT request: the authority-form `host:port` (RFC 9112 section 3.2.3),
/// with the port required and nothing else (no scheme, userinfo, path or query).
public struct ConnectTarget: Equatable, Sendable {
    /// Lowercased host; an IPv6 literal without its brackets.
    public let host: String
    public let port: Int

    /// Parses `host:port` or `[v6]:port`; nil for anything else.
    public static func parse(_ authority: String) -> ConnectTarget? {
        let bytes = authority.utf8
        // Only an authority: the URL parser below would otherwise accept a path or a query.
        guard !bytes.isEmpty, bytes.count <= 1024,
              !bytes.contains(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") || $0 == UInt8(ascii: "@") }),
              let colon = authority.lastIndex(of: ":"), authority[authority.index(after: colon)...].utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
              authority.index(after: colon) != authority.endIndex,
              !authority.hasSuffix("]"),
              let url = UpstreamURL.parse(Substring("http://" + authority)) else { return nil }
        return ConnectTarget(host: url.host, port: url.port)
    }

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// The URL the upstream gate and curl see: plain TCP to the host and port (the client speaks
    /// TLS through the tunnel itself).
    public var url: UpstreamURL { UpstreamURL(scheme: "http", host: host, port: port, pathAndQuery: "/") }

    /// `host:port`, brackets restored for IPv6.
    public var authority: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
