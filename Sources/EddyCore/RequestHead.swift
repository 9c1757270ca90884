/// A request's head as `RequestHeadParser` read it off the wire (RFC 9112 sections 3 to 6): what a
/// connection needs to route the request, read its body and decide whether to keep the
/// connection open afterwards.
public struct RequestHead: Equatable, Sendable {
    /// How the request's body is delimited (RFC 9112 section 6.3).
    public enum Body: Equatable, Sendable {
        /// No body: neither Content-Length nor Transfer-Encoding.
        case none
        /// Exactly this many bytes follow the head.
        case length(Int)
        /// A chunked body follows (`ChunkedBodyDecoder`).
        case chunked
    }

    /// The method token as sent (case-sensitive, RFC 9110 section 9.1).
    public var method: String
    /// The request-target as sent: origin-, absolute-, authority- or asterisk-form.
    public var target: String
    /// The version's digits: HTTP/1.0 or HTTP/1.1 once the head is accepted.
    public var major: Int, minor: Int
    /// The fields in the order received, values without surrounding whitespace.
    public var headers: HTTPHeaders
    /// How the body is framed.
    public var body: Body
    /// Whether the connection may carry another request after this one's response
    /// (RFC 9112 section 9.3: persistent by default in 1.1; 1.0 only with keep-alive).
    public var keepAlive: Bool
    /// The client waits for 100 (Continue) before it sends the body (RFC 9110 section 10.1.1).
    public var expectsContinue: Bool

    public init(method: String, target: String, major: Int = 1, minor: Int = 1, headers: HTTPHeaders = HTTPHeaders(),
                body: Body = .none, keepAlive: Bool = true, expectsContinue: Bool = false) {
        (self.method, self.target, self.major, self.minor, self.headers) = (method, target, major, minor, headers)
        (self.body, self.keepAlive, self.expectsContinue) = (body, keepAlive, expectsContinue)
    }

    /// "HTTP/1.1" or "HTTP/1.0".
    public var version: String { minor == 1 ? "HTTP/1.1" : "HTTP/\(major).\(minor)" }

    /// The head as it would be sent: the request line and the fields, CRLF-terminated.
    public var wire: String {
        var s = method + " " + target + " " + version + "\r\n"
        for (n, v) in headers { s += n + ": " + v + "\r\n" }
        return s + "\r\n"
    }

    /// `wire` as bytes, each field value's bytes as they were read (`FieldText`): what parses
    /// back to this head, obs-text included.
    public var wireBytes: [UInt8] {
        var out = Array((method + " " + target + " " + version + "\r\n").utf8)
        for (n, v) in headers { out += Array(n.utf8) + Array(": ".utf8) + FieldText.encode(v) + [13, 10] }
        return out + [13, 10]
    }
}
