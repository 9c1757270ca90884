import EddyCore
import Glibc

/// Header fields kept as C strings as well, for responses that repeat them: every hit on a stored
/// resource version sends the same replayed fields. Handing evhttp ready C strings skips the
/// per-field String bridging that showed in the small-hit profile.
public final class HeaderBlock {
    /// The fields as Swift values, for paths that change them.
    public let headers: HTTPHeaders
    let cFields: [(name: UnsafeMutablePointer<CChar>, value: UnsafeMutablePointer<CChar>)]
    /// The fields evhttp must see as fields (`evhttpOwns`): those of `cFields`, not copies.
    let evhttpFields: [(name: UnsafeMutablePointer<CChar>, value: UnsafeMutablePointer<CChar>)]
    /// Every other field as it goes on the wire, `Name: value` and CRLF each, written once for
    /// every hit (see `ServerRequest.wireHead`); nil when one can not go verbatim (a CR or LF).
    let wire: String?
    /// The fields `wire` leaves out (`evhttpOwns`), as values, for eddy's own connection layer.
    let ownedFields: HTTPHeaders

    public init(_ headers: HTTPHeaders) {
        self.headers = headers
        let cFields = headers.map { (name: strdup($0.name)!, value: strdup($0.value)!) }
        self.cFields = cFields
        var wire = "", owned: [(name: UnsafeMutablePointer<CChar>, value: UnsafeMutablePointer<CChar>)] = []
        var ownedFields = HTTPHeaders()
        var verbatim = true
        for ((name, value), c) in zip(headers, cFields) {
            if HeaderBlock.evhttpOwns(name) {
                owned.append(c)
                ownedFields.add(name, value)
            } else if HeaderBlock.isVerbatim(name, value) {
                wire += name + ": " + value + "\r\n"
            } else {
                verbatim = false
            }
        }
        evhttpFields = owned
        self.ownedFields = ownedFields
        self.wire = verbatim ? wire : nil
    }

    deinit {
        for f in cFields {
            free(f.name)
            free(f.value)
        }
    }

    /// Fields evhttp adds, or acts on, itself when it writes a head: it must find them among the
    /// request's output headers, or it would add a second one (Content-Length, Date) or keep a
    /// connection it was told to close.
    static func evhttpOwns(_ name: String) -> Bool {
        switch name.lowercased() {
        // Not Content-Type: eddy's evhttp adds none (`evhttp_set_default_content_type(nil)`).
        case "content-length", "date", "connection", "transfer-encoding", "proxy-connection": return true
        default: return false
        }
    }

    /// True when `name: value` can be written as is: no CR, LF or NUL in either (RFC 9110 section
    /// 5.5), so that it can not end the line or the head early.
    static func isVerbatim(_ name: String, _ value: String) -> Bool {
        !name.utf8.contains { $0 == 13 || $0 == 10 || $0 == 0 } && !value.utf8.contains { $0 == 13 || $0 == 10 || $0 == 0 }
    }
}
