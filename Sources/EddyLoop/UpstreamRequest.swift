import EddyCore

/// What to send upstream: a method (GET or HEAD for the cache; any for a pass-through), the
/// headers eddy adds or passes on (Range, If-Range, Via...), and a request body, if any.
public struct UpstreamRequest: Sendable {
    public var url: UpstreamURL
    public var method: String = "GET"
    public var headers: HTTPHeaders = HTTPHeaders()
    /// The request body, whole (a pass-through's, within `max_body_size`).
    public var body: [UInt8]?
    /// A request body still arriving from the client, sent as curl takes it (instead of `body`).
    public var bodyStream: RequestBodyStream?
    /// Refuse to connect to loopback, private or link-local addresses (checked after DNS).
    public var refuseInternalAddresses = false
    /// Open a TCP connection to the URL's host and port and stop there (CURLOPT_CONNECT_ONLY),
    /// for a CONNECT tunnel: the socket is then taken with `UpstreamTransfer.takeSocket()`.
    public var connectOnly = false
    /// The parent proxy to send it to (`parents:`), in absolute form; nil: to the origin itself.
    public var parent: UpstreamURL?
    /// Set when the request must not go anywhere (every parent down with `parent_go_direct:
    /// false`): the transfer ends at once with `.refused` and this reason.
    public var unavailable: String?
    /// The cache key a parent is chosen by (set by whoever builds the request; the URL's if nil).
    public var parentKey: String?
    /// Parents that answered this fetch without the object, with an error of their own upstream
    /// (502, 503, 504: an origin they cannot reach): the next parent in the key's order is asked,
    /// which may hold it (a download's pinned copy on the parent tier).
    public var passedOver: [UpstreamURL] = []

    public init(url: UpstreamURL) { self.url = url }
}
