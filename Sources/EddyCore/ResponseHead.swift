/// A response's head as eddy's own connection layer writes it, and how its body is framed
/// (RFC 9112 sections 4, 6 and 9): the status line in the request's version, the fields given,
/// then the fields the connection owns (Date, Content-Length or Transfer-Encoding, Connection).
public struct ResponseHead: Equatable, Sendable {
    /// How the body that follows the head is delimited on the wire.
    public enum Framing: Equatable, Sendable {
        /// No body goes out: 1xx, 204, 304, or the answer to HEAD (RFC 9110 section 6.4.1).
        case none
        /// Exactly this many bytes.
        case length(Int)
        /// Chunks (RFC 9112 section 7.1), when the length is not known and the client speaks 1.1.
        case chunked
        /// Until the connection closes: an HTTP/1.0 client of a body of unknown length.
        case untilClose
    }

    /// The head's bytes, blank line included.
    public let bytes: [UInt8]
    public let framing: Framing
    /// Whether the connection carries another request after this response.
    public let keepAlive: Bool

    /// The head as text (its bytes are ASCII, or the UTF-8 of the values given).
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// The head of a response with `status` to a request (`method`, HTTP/1.`minor`, wanting
    /// persistence or not). `prebuilt`: fields ready as text (CRLF-ended lines, none of them the
    /// framing fields; `prebuiltHasDate` when a Date is among them), written first; `fields` are
    /// written in order after it; `bodyLength` is the body's length when
    /// the whole body is at hand (a Content-Length among the fields wins, as for HEAD, where it is
    /// the GET's). Fields whose name is not a token or whose value holds CR, LF or NUL are
    /// dropped, never written (response splitting); so are framing fields eddy must own.
    public init(status: Int, reason: String, method: String, minor: Int, requestKeepAlive: Bool,
                fields: [HTTPHeaders], prebuilt: String = "", prebuiltHasDate: Bool = false, bodyLength: Int?, date: String) {
        // Bytes appended to one array reserved once: every hit builds a head, and String
        // concatenation (a temporary a field) cost a tenth of a 16 KiB range's CPU (RESULTS.md,
        // issue 33, eleventh part).
        var out = [UInt8]()
        out.reserveCapacity(prebuilt.utf8.count + fields.reduce(0) { $0 + 48 * $1.fields.count } + 128)
        out.append(contentsOf: (minor == 0 ? "HTTP/1.0 " : "HTTP/1.1 ").utf8)
        ResponseHead.appendDecimal(status, to: &out)
        out.append(UInt8(ascii: " "))
        out.append(contentsOf: reason.utf8)
        out.append(contentsOf: ResponseHead.crlf)
        out.append(contentsOf: prebuilt.utf8)
        var length: Int?, close = false, hasDate = prebuiltHasDate
        for list in fields {
            for (name, value) in list {
                guard ResponseHead.writable(name, value) else { continue }
                switch ResponseHead.owned(name) {
                case .contentLength:
                    if length == nil, let n = Int(value), n >= 0 { length = n }
                    continue // written once, below
                case .connection:
                    // RFC 9110 section 7.6.1: hop-by-hop; a "close" among them ends the connection.
                    if value.split(separator: ",").contains(where: { String($0.trimmingOWS()).caseInsensitiveEquals("close") }) {
                        close = true
                    }
                    continue
                case .hopByHop:
                    continue
                case .date:
                    hasDate = true
                case nil:
                    break
                }
                ResponseHead.appendField(name, value, to: &out)
            }
        }
        if !hasDate { ResponseHead.appendField("Date", date, to: &out) }
        let bodiless = (100..<200).contains(status) || status == 204 || status == 304
        let framing: Framing
        // A HEAD's body is the GET's: only a Content-Length given for it says its length.
        if let n = length ?? (method == "HEAD" ? nil : bodyLength) {
            if !bodiless { // RFC 9110 section 8.6
                out.append(contentsOf: "Content-Length: ".utf8)
                ResponseHead.appendDecimal(n, to: &out)
                out.append(contentsOf: ResponseHead.crlf)
            }
            framing = bodiless || method == "HEAD" ? .none : .length(n)
        } else if bodiless || method == "HEAD" {
            framing = .none
        } else if minor == 1 {
            out.append(contentsOf: "Transfer-Encoding: chunked\r\n".utf8)
            framing = .chunked
        } else {
            framing = .untilClose
        }
        let keepAlive = requestKeepAlive && !close && framing != .untilClose
        if !keepAlive {
            out.append(contentsOf: "Connection: close\r\n".utf8)
        } else if minor == 0 {
            out.append(contentsOf: "Connection: keep-alive\r\n".utf8)
        }
        out.append(contentsOf: ResponseHead.crlf)
        self.bytes = out
        self.framing = framing
        self.keepAlive = keepAlive
    }

    private static let crlf: [UInt8] = [13, 10]

    private static func appendField(_ name: String, _ value: String, to out: inout [UInt8]) {
        out.append(contentsOf: name.utf8)
        out.append(UInt8(ascii: ":"))
        out.append(UInt8(ascii: " "))
        out.append(contentsOf: value.utf8)
        out.append(contentsOf: crlf)
    }

    /// `n` in decimal, without a String in between.
    static func appendDecimal(_ n: Int, to out: inout [UInt8]) {
        guard n > 0 else {
            if n == 0 { out.append(UInt8(ascii: "0")) } else { out.append(contentsOf: String(n).utf8) }
            return
        }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0) // 24 bytes: room for Int.max's 19 digits
        var count = 0
        withUnsafeMutableBytes(of: &digits) { d in
            var v = n
            while v > 0 {
                d[23 - count] = UInt8(ascii: "0") + UInt8(v % 10)
                v /= 10
                count += 1
            }
            out.append(contentsOf: d[(24 - count)...])
        }
    }

    private enum Owned { case contentLength, connection, hopByHop, date }

    /// The fields the connection writes itself; a switch on the first letter keeps the other
    /// fields (most of them) to one comparison.
    private static func owned(_ name: String) -> Owned? {
        switch name.utf8.first.map({ $0 | 0x20 }) {
        case UInt8(ascii: "c"):
            if name.caseInsensitiveEquals("Content-Length") { return .contentLength }
            if name.caseInsensitiveEquals("Connection") { return .connection }
        case UInt8(ascii: "t"):
            if name.caseInsensitiveEquals("Transfer-Encoding") { return .hopByHop }
        case UInt8(ascii: "k"):
            if name.caseInsensitiveEquals("Keep-Alive") { return .hopByHop }
        case UInt8(ascii: "p"):
            if name.caseInsensitiveEquals("Proxy-Connection") { return .hopByHop }
        case UInt8(ascii: "d"):
            if name.caseInsensitiveEquals("Date") { return .date }
        default:
            break
        }
        return nil
    }

    /// A field that may go on the wire as given.
    public static func writable(_ name: String, _ value: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy(RequestFraming.isTokenChar)
            && !value.utf8.contains { $0 == 13 || $0 == 10 || $0 == 0 }
    }

    /// The chunk header for `count` bytes (RFC 9112 section 7.1): hex size and CRLF.
    public static func chunkHeader(_ count: Int) -> String { String(count, radix: 16) + "\r\n" }

    /// The last chunk and the empty trailer section.
    public static let lastChunk = "0\r\n\r\n"
}
