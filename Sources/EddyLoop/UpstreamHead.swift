import EddyCore

/// The status line and header fields of an upstream response.
public struct UpstreamHead: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    /// The HTTP version curl negotiated, e.g. "HTTP/2", for logs.
    public var version: String

    public init(status: Int, headers: HTTPHeaders, version: String) {
        self.status = status
        self.headers = headers
        self.version = version
    }

    /// Content-Length when present and valid.
    public var contentLength: Int? {
        ResponseFraming.length(headers)
    }
}
