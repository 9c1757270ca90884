/// Reads one complete request head, the bytes `RequestHeadParser` found, line by line: the
/// request line (RFC 9112 section 3), the field lines (section 5), then the framing rules
/// `RequestFraming` shares with the rest of eddy and those of the connection itself.
struct HeadReader {
    /// A refusal: the status to answer and why.
    struct Problem: Error, Equatable {
        let status: Int
        let reason: String
    }

    private let b: UnsafeBufferPointer<UInt8>
    private var i: Int
    private let end: Int
    private let limits: RequestHeadParser.Limits

    /// `b[from..<to]` is the head, its blank line included.
    init(_ b: UnsafeBufferPointer<UInt8>, from: Int, to: Int, limits: RequestHeadParser.Limits) {
        (self.b, i, end, self.limits) = (b, from, to, limits)
    }

    mutating func read() -> Result<RequestHead, Problem> {
        do { return .success(try readHead()) } catch { return .failure(error) }
    }

    private mutating func readHead() throws(Problem) -> RequestHead {
        // request-line = method SP request-target SP HTTP-version; one SP each, as RFC 9112
        // section 3 says a server should not try to make sense of anything else.
        let (lineStart, lineEnd) = try line()
        var p = lineStart
        while p < lineEnd && RequestFraming.isTokenChar(b[p]) { p += 1 }
        guard p > lineStart, p < lineEnd, b[p] == .space else { throw Problem(status: 400, reason: "invalid method") }
        let method = text(lineStart, p)
        let targetStart = p + 1
        p = targetStart
        while p < lineEnd && b[p] > 0x20 && b[p] < 0x7F { p += 1 }
        guard p > targetStart, p < lineEnd, b[p] == .space else { throw Problem(status: 400, reason: "invalid request-target") }
        guard p - targetStart <= limits.maxTargetBytes else { throw Problem(status: 414, reason: "request-target too long") }
        let target = text(targetStart, p)
        guard let (major, minor) = version(p + 1, lineEnd) else { throw Problem(status: 400, reason: "invalid HTTP version") }

        var headers = HTTPHeaders(capacity: 8)
        while true {
            let (s, e) = try line()
            if s == e { break }
            // RFC 9112 section 5.2 (obs-fold) and section 2.2 (whitespace after the start line):
            // a line starting with whitespace continues nothing eddy will accept.
            guard b[s] != .space && b[s] != .tab else { throw Problem(status: 400, reason: "obsolete line folding") }
            guard headers.fields.count < limits.maxFields else { throw Problem(status: 431, reason: "too many header fields") }
            var c = s
            while c < e && RequestFraming.isTokenChar(b[c]) { c += 1 }
            guard c < e, b[c] == UInt8(ascii: ":") else {
                // RFC 9112 section 5.1: whitespace between name and colon gets 400.
                let spaced = c < e && (b[c] == .space || b[c] == .tab)
                throw Problem(status: 400, reason: spaced ? "whitespace before the colon" : "invalid field name")
            }
            guard c > s else { throw Problem(status: 400, reason: "invalid field name") }
            var vs = c + 1, ve = e
            while vs < ve && (b[vs] == .space || b[vs] == .tab) { vs += 1 }
            while ve > vs && (b[ve - 1] == .space || b[ve - 1] == .tab) { ve -= 1 }
            for k in vs..<ve where (b[k] < 0x20 && b[k] != .tab) || b[k] == 0x7F {
                throw Problem(status: 400, reason: "invalid character in a field value")
            }
            headers.add(text(s, c), text(vs, ve))
        }
        return try framing(RequestHead(method: method, target: target, major: major, minor: minor, headers: headers))
    }

    /// The next line's content (without its LF, or CRLF), moving past it. A CR anywhere else is
    /// refused (RFC 9112 section 2.2).
    private mutating func line() throws(Problem) -> (Int, Int) {
        let s = i
        while i < end && b[i] != .lf {
            if b[i] == .cr && !(i + 1 < end && b[i + 1] == .lf) { throw Problem(status: 400, reason: "bare CR in the request") }
            i += 1
        }
        guard i < end else { throw Problem(status: 400, reason: "incomplete head") } // the parser found its end: not reached
        let e = i > s && b[i - 1] == .cr ? i - 1 : i
        i += 1
        return (s, e)
    }

    /// HTTP-version = "HTTP/" DIGIT "." DIGIT, filling `b[s..<e]` exactly.
    private func version(_ s: Int, _ e: Int) -> (Int, Int)? {
        guard e - s == 8 else { return nil }
        let name: [UInt8] = Array("HTTP/".utf8)
        for k in 0..<5 where b[s + k] != name[k] { return nil }
        let major = b[s + 5], dot = b[s + 6], minor = b[s + 7]
        guard (48...57).contains(major), dot == UInt8(ascii: "."), (48...57).contains(minor) else { return nil }
        return (Int(major - 48), Int(minor - 48))
    }

    private func text(_ s: Int, _ e: Int) -> String {
        FieldText.decode(UnsafeBufferPointer(rebasing: b[s..<e])) // obs-text bytes kept as they came
    }

    /// The version, Host and length rules (`RequestFraming`), then those of the connection: how
    /// the body is delimited, persistence and expectations.
    private func framing(_ head: RequestHead) throws(Problem) -> RequestHead {
        var h = head
        let checked = RequestFraming.check(major: h.major, minor: h.minor, headers: h.headers, method: h.method)
        if let (status, reason) = checked.problem { throw Problem(status: status, reason: reason) }
        if checked.chunked {
            // RFC 9112 section 6.1: a server may refuse both; it must not trust the length.
            guard checked.length == nil else { throw Problem(status: 400, reason: "both Content-Length and Transfer-Encoding") }
            h.body = .chunked
        } else if let digits = checked.length {
            // The one value all agree on, digits only. Past the limit, or past Int, is 413.
            guard let n = Int(digits), n <= limits.maxBodyBytes else { throw Problem(status: 413, reason: "request body too large") }
            h.body = n == 0 ? .none : .length(n)
        }
        var close = false, keepAlive = false
        for value in h.headers.values("Connection") {
            for token in value.split(separator: ",") {
                let t = String(token.trimmingOWS())
                if t.caseInsensitiveEquals("close") { close = true }
                if t.caseInsensitiveEquals("keep-alive") { keepAlive = true }
            }
        }
        h.keepAlive = !close && (h.minor == 1 || keepAlive)
        if let expect = h.headers.combined("Expect") {
            // RFC 9110 section 10.1.1: 100-continue is the only expectation; a 1.0 client does
            // not wait for the interim response it can not read.
            guard String(expect.trimmingOWS()).caseInsensitiveEquals("100-continue") else {
                throw Problem(status: 417, reason: "unsupported expectation")
            }
            h.expectsContinue = h.minor == 1 && h.body != .none
        }
        return h
    }
}
