/// Finds a request's head in the bytes a connection has read, and parses it strictly (RFC 9112
/// sections 2 to 7): every leniency is a way for two parties on the path to read different
/// requests out of the same bytes (request smuggling), so anything RFC 9112 lets a server refuse
/// is refused, with the status a client can act on.
///
/// Incremental: call `parse` with everything buffered so far each time more arrives. The search
/// for the blank line that ends the head resumes where it stopped, so a head trickled in one byte
/// at a time costs O(n), not O(n²). Nothing is validated before the head is whole, except its
/// size: at most `Limits.maxHeadBytes`, judged on that window alone, so the outcome does not
/// depend on how the bytes were split.
public struct RequestHeadParser: Sendable {
    /// Bounds on what a client may make eddy hold and scan.
    public struct Limits: Equatable, Sendable {
        /// Request line and fields with their line ends, empty lines before the request line included.
        public var maxHeadBytes = 16 << 10
        /// The request-target (414 past it, RFC 9112 section 3).
        public var maxTargetBytes = 8 << 10
        /// Field lines (431 past it, RFC 6585 section 5).
        public var maxFields = 100
        /// A Content-Length over this gets 413 before any of the body is read.
        public var maxBodyBytes = 64 << 20
        public init() {}
    }

    /// What the bytes so far amount to.
    public enum Outcome: Equatable, Sendable {
        /// No complete head yet, and nothing wrong so far.
        case incomplete
        /// A head of `length` bytes from the buffer's start (empty lines before it included);
        /// the body, or the next request, starts there.
        case head(RequestHead, length: Int)
        /// Refuse with `status` and say `reason`, then close: the framing can not be trusted.
        case invalid(status: Int, reason: String)
    }

    public let limits: Limits
    /// Empty lines allowed before a request line.
    static let maxEmptyLines = 4
    /// Bytes already searched for the head's end: no terminator starts before this.
    private var scanned = 0

    public init(limits: Limits = Limits()) { self.limits = limits }

    /// Forgets the last search: call after a head was taken (the buffer then starts anew).
    public mutating func reset() { scanned = 0 }

    /// Parses `buffer`, everything read since the last head (or since `reset`).
    public mutating func parse(_ buffer: UnsafeRawBufferPointer) -> Outcome {
        let b = buffer.bindMemory(to: UInt8.self)
        let count = b.count, window = min(count, limits.maxHeadBytes)
        // RFC 9112 section 2.2: empty lines before the request line are ignored (some clients
        // send a CRLF after a POST body); a few, as this loop runs again on every call.
        var start = 0, empty = 0
        while start < window && (b[start] == .lf || b[start] == .cr) {
            empty += 1
            guard empty <= RequestHeadParser.maxEmptyLines else { return .invalid(status: 400, reason: "empty lines instead of a request") }
            if b[start] == .lf { start += 1; continue }
            guard start + 1 < window else { break }
            guard b[start + 1] == .lf else { return .invalid(status: 400, reason: "bare CR in the request") }
            start += 2
        }
        // Checked whether or not the head is whole, so that the outcome is the same however
        // the bytes arrive.
        if let problem = RequestHeadParser.notHTTP1(b, from: start, count: window) { return problem }
        guard let end = headEnd(b, from: max(start, scanned), count: window) else {
            scanned = max(start, window - 2)
            return count > limits.maxHeadBytes ? oversize(b, from: start, count: window) : .incomplete
        }
        scanned = 0
        var reader = HeadReader(b, from: start, to: end, limits: limits)
        switch reader.read() {
        case let .success(head): return .head(head, length: end)
        case let .failure(problem): return .invalid(status: problem.status, reason: problem.reason)
        }
    }

    /// A refusal for bytes that can not begin an HTTP/1.x head, found before its end arrives:
    /// nothing else is coming that would make them one, so waiting for the header timeout only
    /// holds the connection (nginx answers these at once too). A request line starts with a
    /// method, a token (RFC 9112 section 3), which a TLS ClientHello (0x16) does not; and a
    /// whole first line must name a version (`method SP target SP HTTP-version`), which an
    /// HTTP/0.9 `GET /` does not.
    static func notHTTP1(_ b: UnsafeBufferPointer<UInt8>, from start: Int, count: Int) -> Outcome? {
        guard start < count, b[start] != .cr, b[start] != .lf else { return nil } // a CR whose LF is still coming
        guard RequestFraming.isTokenChar(b[start]) else {
            return .invalid(status: 400, reason: b[start] == 0x16 ? "a TLS handshake on a plain HTTP listener" : "not an HTTP/1.x request")
        }
        var spaces = 0, i = start
        while i < count && b[i] != .lf {
            if b[i] == UInt8(ascii: " ") { spaces += 1 }
            i += 1
        }
        guard i < count else { return nil } // the first line is still arriving
        return spaces < 2 ? .invalid(status: 400, reason: "a request line without an HTTP version (HTTP/0.9 is not supported)") : nil
    }

    /// The index just past the blank line ending the head (LF then LF, or LF then CRLF), if it
    /// is within `count`. Starts looking at `from`, where the last search left off.
    private func headEnd(_ b: UnsafeBufferPointer<UInt8>, from: Int, count: Int) -> Int? {
        var i = from
        while i < count {
            if b[i] == .lf {
                if i + 1 < count && b[i + 1] == .lf { return i + 2 }
                if i + 2 < count && b[i + 1] == .cr && b[i + 2] == .lf { return i + 3 }
            }
            i += 1
        }
        return nil
    }

    /// The refusal of a head longer than the limit, judged on the first `count` bytes: a request
    /// line that does not end within them is a long target (414) or garbage (400); otherwise
    /// the fields are too large (431).
    private func oversize(_ b: UnsafeBufferPointer<UInt8>, from start: Int, count: Int) -> Outcome {
        var i = start
        while i < count && b[i] != .lf { i += 1 }
        if i < count { return .invalid(status: 431, reason: "request header fields too large") }
        var firstSpace = start
        while firstSpace < count && b[firstSpace] != .space { firstSpace += 1 }
        if count - firstSpace > limits.maxTargetBytes { return .invalid(status: 414, reason: "request-target too long") }
        return .invalid(status: 400, reason: "request line too long")
    }
}

extension UInt8 {
    static let lf = UInt8(ascii: "\n"), cr = UInt8(ascii: "\r"), space = UInt8(ascii: " "), tab = UInt8(ascii: "\t")
}
