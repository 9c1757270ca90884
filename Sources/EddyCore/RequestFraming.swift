/// Strict checks on a request's version and framing fields, applied before a request is routed.
///
/// Every leniency where RFC 9112 requires a refusal is a way for two parties on the path to read
/// different requests out of the same bytes (request smuggling):
/// - the version must be HTTP/1.0 or HTTP/1.1 (505 otherwise, RFC 9110 section 15.6.6);
/// - a field name must be a token: `Host : x` names a field "Host " that no one else sees
///   (RFC 9112 section 5.1: whitespace before the colon gets 400);
/// - an HTTP/1.1 request has exactly one Host (RFC 9112 section 3.2);
/// - Content-Length values must all agree (RFC 9112 section 6.3, item 5);
/// - the only transfer coding eddy decodes in a request is a lone `chunked` (RFC 9112 section 6.1);
/// - a HEAD or TRACE request carries no body: a server that does not read one for them would
///   parse its bytes as the next request on the connection (found by schemathesis, under evhttp).
public enum RequestFraming {
    /// What the checks found in one pass over the fields: why the request must be refused, or
    /// else how its body is framed, so that the reader of the head takes the framing from here
    /// rather than looking the fields up again.
    public struct Checked {
        /// The status and reason for a request that must be refused; nil when it is acceptable.
        public var problem: (status: Int, reason: String)?
        /// The Content-Length, the one value all of its fields and list items agree on (digits).
        public var length: Substring?
        /// A lone `chunked` transfer coding was named.
        public var chunked = false
    }

    /// The status and reason for a request that must be refused, or nil when it is acceptable.
    /// `method` is needed for the body rule; nil skips it.
    public static func problem(major: Int, minor: Int, headers: HTTPHeaders, method: String? = nil) -> (status: Int, reason: String)? {
        check(major: major, minor: minor, headers: headers, method: method).problem
    }

    /// The checks, and the framing they found (`Checked`).
    public static func check(major: Int, minor: Int, headers: HTTPHeaders, method: String? = nil) -> Checked {
        var out = Checked()
        func refuse(_ status: Int, _ reason: String) -> Checked {
            Checked(problem: (status, reason))
        }
        guard major == 1, (0...1).contains(minor) else { return refuse(505, "HTTP/\(major).\(minor) is not supported; use HTTP/1.1") }
        var hosts = 0, codings = 0
        for (name, value) in headers {
            guard !name.isEmpty, name.utf8.allSatisfy(isTokenChar) else { return refuse(400, "invalid field name") }
            if name.caseInsensitiveEquals("Host") { hosts += 1 }
            if name.caseInsensitiveEquals("Content-Length") {
                // A list of identical values ("5, 5") is one length; anything else is ambiguous.
                for item in value.split(separator: ",", omittingEmptySubsequences: false) {
                    let v = item.trimmingOWS()
                    guard !v.isEmpty, v.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return refuse(400, "invalid Content-Length") }
                    if let l = out.length, l != v { return refuse(400, "conflicting Content-Length values") }
                    out.length = v
                }
            }
            if name.caseInsensitiveEquals("Transfer-Encoding") {
                // RFC 9112 section 6.1: in HTTP/1.0 it is faulty framing; otherwise only chunked is decoded.
                if minor == 0 { return refuse(400, "Transfer-Encoding in an HTTP/1.0 request") }
                if !String(value.trimmingOWS()).caseInsensitiveEquals("chunked") { return refuse(400, "unsupported Transfer-Encoding") }
                codings += 1
            }
        }
        if hosts > 1 { return refuse(400, "more than one Host field") }
        if minor == 1 && hosts == 0 { return refuse(400, "HTTP/1.1 request without Host") }
        if codings > 1 { return refuse(400, "unsupported Transfer-Encoding") }
        out.chunked = codings == 1
        if method == "HEAD" || method == "TRACE" {
            if out.chunked || (out.length.map { $0.contains { $0 != "0" } } ?? false) {
                return refuse(400, "a \(method!) request can not carry a body")
            }
        }
        return out
    }

    /// tchar (RFC 9110 section 5.6.2).
    public static func isTokenChar(_ c: UInt8) -> Bool {
        switch c {
        case 48...57, 65...90, 97...122: return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
             UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
             UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"): return true
        default: return false
        }
    }
}
