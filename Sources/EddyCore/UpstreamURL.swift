/// An absolute http(s) URL split into the parts eddy routes and keys on.
///
/// Hand-parsed rather than through Foundation's URL so that the path and query keep their exact
/// bytes (percent-encoding is neither added nor removed) and parsing is cheap on the request path.
public struct UpstreamURL: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// `http` or `https`, lowercased.
    public let scheme: String
    /// The host, lowercased; IPv6 literals without brackets.
    public let host: String
    /// The port, the scheme's default when absent.
    public let port: Int
    /// Path and query as received, starting with `/`.
    public let pathAndQuery: String

    /// `host` or `host:port`, bracketing IPv6, omitting the default port: the Host header value.
    public let authority: String
    /// The normalized absolute URL (RFC 9110 section 4.2.3: scheme and host lowercase, default port
    /// removed, empty path as `/`). It is also the cache key. Built once: every request reads it
    /// (key, lookups, logs), and rebuilding it per use showed in the hit path's profile.
    public let description: String

    public init(scheme: String, host: String, port: Int, pathAndQuery: String) {
        let bracketed = host.utf8.contains(UInt8(ascii: ":")) ? "[" + host + "]" : host
        self.init(scheme: scheme, host: host, port: port,
                  authority: port == UpstreamURL.defaultPort(scheme) ? bracketed : bracketed + ":" + String(port),
                  pathAndQuery: pathAndQuery)
    }

    private init(scheme: String, host: String, port: Int, authority: String, pathAndQuery: String) {
        self.scheme = scheme
        self.host = host
        self.port = port
        self.pathAndQuery = pathAndQuery
        self.authority = authority
        // One allocation: chained `+` would build each intermediate string.
        var d = ""
        d.reserveCapacity(scheme.utf8.count + 3 + authority.utf8.count + pathAndQuery.utf8.count)
        d += scheme
        d += "://"
        d += authority
        d += pathAndQuery
        description = d
    }

    /// This URL with another path and query (starting with `/`), its authority reused.
    public func replacing(pathAndQuery: String) -> UpstreamURL {
        UpstreamURL(scheme: scheme, host: host, port: port, authority: authority, pathAndQuery: pathAndQuery)
    }

    /// The scheme's default port.
    public var defaultPort: Int { UpstreamURL.defaultPort(scheme) }

    static func defaultPort(_ scheme: String) -> Int { scheme == "https" ? 443 : 80 }

    /// True when `other` has the same origin: scheme, host and port (RFC 6454 section 4).
    public func hasSameOrigin(as other: UpstreamURL) -> Bool {
        scheme == other.scheme && host == other.host && port == other.port
    }

    // The description determines every other field, so it alone is compared and hashed.
    public static func == (a: UpstreamURL, b: UpstreamURL) -> Bool { a.description == b.description }
    public func hash(into hasher: inout Hasher) { hasher.combine(description) }

    /// Parses `http://host[:port][/path][?query]`; userinfo is rejected (it would be a credential in a
    /// cache key, and RFC 9110 section 4.2.4 deprecates it). The fragment is dropped.
    public static func parse(_ text: Substring) -> UpstreamURL? {
        guard let colon = text.firstIndex(of: ":"), text[colon...].hasPrefix("://") else { return nil }
        let scheme = text[..<colon].lowercased()
        guard scheme == "http" || scheme == "https" else { return nil }
        var rest = text[text.index(colon, offsetBy: 3)...]
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        let authEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        let authority = rest[..<authEnd]
        var path = String(rest[authEnd...])
        if path.isEmpty || path.hasPrefix("?") { path = "/" + path }
        guard !authority.isEmpty, !authority.contains("@") else { return nil }
        var host: Substring, portText: Substring? = nil
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") { portText = after.dropFirst() } else if !after.isEmpty { return nil }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority
        }
        let bracketed = authority.hasPrefix("[")
        // reg-name / IPv4 characters; inside brackets, IPv6 hex, colons and a zone id.
        let hostByteAllowed: (UInt8) -> Bool = { c in
            (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c == 45 || c == 46 || c == 95
                || (bracketed && (c == 58 || c == 37))
        }
        guard !host.isEmpty, host.utf8.allSatisfy(hostByteAllowed) else { return nil }
        // An IP-literal is an IPv6 address (RFC 3986 section 3.2.2); `[example.com]` or `[a%25b]`
        // would normalize to a key that does not parse again (found by the FuzzURL harness).
        if bracketed { guard IPv6Address.parse(String(host)) != nil, host.utf8.contains(58) else { return nil } }
        var port = UpstreamURL.defaultPort(scheme)
        if let portText, !portText.isEmpty {
            // port = *DIGIT (RFC 3986 section 3.2.3); Int() alone would also take a sign.
            guard portText.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let p = Int(portText), (1...65535).contains(p) else { return nil }
            port = p
        }
        guard path.utf8.allSatisfy({ $0 > 32 && $0 < 127 }) else { return nil }
        return UpstreamURL(scheme: scheme, host: host.lowercased(), port: port, pathAndQuery: path)
    }

    /// Joins an origin base (`https://cdn.example.com/base`) with a request path (`/movies/a.mp4`).
    public func appending(pathAndQuery suffix: String) -> UpstreamURL {
        // Mapped requests land here once each: reuse the base's authority rather than rebuild it.
        let path: String
        if pathAndQuery == "/" {
            path = suffix // the common base: no copy
        } else {
            let trimmed = pathAndQuery.utf8.last == UInt8(ascii: "/") ? pathAndQuery.dropLast() : pathAndQuery[...]
            path = trimmed + suffix
        }
        return UpstreamURL(scheme: scheme, host: host, port: port, authority: authority, pathAndQuery: path)
    }
}
