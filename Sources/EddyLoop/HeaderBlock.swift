import EddyCore

/// Header fields prepared once for responses that repeat them: every hit on a stored resource
/// version sends the same replayed fields, so their text is built once and written as is
/// (`ServerRequest`'s heads), instead of field by field for every hit.
public final class HeaderBlock {
    /// The fields as Swift values, for paths that change them.
    public let headers: HTTPHeaders
    /// Every field the connection does not own (`connectionOwns`), as it goes on the wire,
    /// `Name: value` and CRLF each; nil when one can not go verbatim (a CR, LF or NUL, or a name
    /// that is not a token): the head is then built field by field, which drops those.
    let wire: String?
    /// The fields `wire` leaves out, which the connection reads to frame the response.
    let ownedFields: HTTPHeaders

    public init(_ headers: HTTPHeaders) {
        self.headers = headers
        var wire = "", owned = HTTPHeaders()
        var verbatim = true
        for (name, value) in headers {
            if HeaderBlock.connectionOwns(name) {
                owned.add(name, value)
            } else if ResponseHead.writable(name, value) {
                wire += name + ": " + value + "\r\n"
            } else {
                verbatim = false
            }
        }
        ownedFields = owned
        self.wire = verbatim ? wire : nil
    }

    /// Fields the connection writes or acts on itself when it writes a head (`ResponseHead`):
    /// the framing and persistence fields, and Date, which it adds when absent.
    static func connectionOwns(_ name: String) -> Bool {
        switch name.lowercased() {
        case "content-length", "date", "connection", "transfer-encoding", "proxy-connection", "keep-alive": return true
        default: return false
        }
    }
}
