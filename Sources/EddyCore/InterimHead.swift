/// The bytes of an interim (1xx) response a proxy forwards ahead of the final one, such as
/// 103 Early Hints (RFC 8297), written to the connection ahead of the final head; this builds them.
public enum InterimHead {
    /// Which 1xx statuses are forwarded: not 100 (curl answers Expect itself, and eddy's connection
    /// answers the client's) and not 101 (eddy never upgrades a connection).
    public static func isForwarded(_ status: Int) -> Bool { (102..<200).contains(status) }

    /// An HTTP/1.1 interim head, or nil when none may be sent: the status is not forwarded, or the
    /// client spoke HTTP/1.0, to which a server must not send 1xx (RFC 9110 section 15.2).
    /// Hop-by-hop fields are dropped (section 7.6.1), and so is any field whose name is not a
    /// token or whose value holds a control character other than tab: an origin's bad line must
    /// not become a client's broken framing.
    public static func encode(status: Int, headers: HTTPHeaders, clientMajor: Int, clientMinor: Int) -> [UInt8]? {
        guard isForwarded(status), clientMajor > 1 || (clientMajor == 1 && clientMinor >= 1) else { return nil }
        var out = Array("HTTP/1.1 \(status) \(status == 103 ? "Early Hints" : "Interim")\r\n".utf8)
        for (name, value) in StoragePolicy.forwarded(headers) {
            guard !name.isEmpty, name.utf8.allSatisfy(RequestFraming.isTokenChar),
                  value.utf8.allSatisfy({ $0 == 9 || ($0 >= 32 && $0 != 127) }) else { continue }
            out += Array(name.utf8) + [58, 32] + Array(value.utf8) + [13, 10]
        }
        out += [13, 10]
        return out
    }
}
