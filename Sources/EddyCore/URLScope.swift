/// The upstream URLs a config rule covers (`cache_key:`, `cookies:`): those that start with
/// `prefix` (a mapped origin's base, or any URL prefix) and whose host matches `host`, when given.
public struct URLScope: Equatable, Sendable {
    public let prefix: String?
    public let host: HostPattern?

    public init(prefix: String? = nil, host: HostPattern? = nil) {
        (self.prefix, self.host) = (prefix, host)
    }

    /// True when the rule applies to `url`.
    public func matches(_ url: UpstreamURL) -> Bool {
        if let prefix, !url.description.hasPrefix(prefix) { return false }
        if let host, !host.matches(host: url.host, port: url.port) { return false }
        return true
    }
}
