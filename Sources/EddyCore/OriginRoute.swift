/// A mapped origin: requests whose path starts with `prefix` go to `base` joined with the rest.
public struct OriginRoute: Equatable, Sendable {
    /// A path prefix such as `/` or `/cdn1/`.
    public let prefix: String
    /// The upstream base URL.
    public let base: UpstreamURL

    public init(prefix: String, base: UpstreamURL) {
        var p = prefix.hasPrefix("/") ? prefix : "/" + prefix
        if !p.hasSuffix("/") { p += "/" }
        self.prefix = p
        self.base = base
    }
}
