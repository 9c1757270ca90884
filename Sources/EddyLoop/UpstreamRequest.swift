import EddyCore

/// What to fetch upstream: one GET or HEAD, with the headers eddy adds (Range, If-Range, Via...).
public struct UpstreamRequest: Sendable {
    public var url: UpstreamURL
    public var method: String = "GET"
    public var headers: HTTPHeaders = HTTPHeaders()
    /// Refuse to connect to loopback, private or link-local addresses (checked after DNS).
    public var refuseInternalAddresses = false

    public init(url: UpstreamURL) { self.url = url }
}
