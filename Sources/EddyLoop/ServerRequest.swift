import CLibevent
import EddyCore
import Glibc

/// One client request and its response, wrapping an `evhttp_request`.
///
/// Responses are either sent whole (`send`, `sendError`) or streamed: `start` sends the head with a
/// Content-Length, then `writeFile`/`write` add body bytes and `onDrained` fires when the connection's
/// output buffer falls under its low watermark, then `end`. File bytes are added as file segments to
/// the connection's own output buffer, so libevent sends them with sendfile (zero-copy).
public final class ServerRequest: ClientRequest {
    let raw: OpaquePointer
    unowned let server: HTTPServer
    /// The method as sent (`GET`, `HEAD`, ...).
    /// The method; an extension method evhttp could not name is set by `acceptExtension`.
    public internal(set) var method: String
    /// The request-target as sent: origin-form path or absolute-form URL.
    public let uri: String
    /// Request header fields.
    public let headers: HTTPHeaders
    /// Peer address (for the access log). Read at once: evhttp may free the request as soon as
    /// the reply is written, before the access log asks.
    public let peer: String
    /// HTTP version, e.g. "HTTP/1.1".
    public let version: String
    /// The version's numbers, for the framing checks.
    public let versionMajor: Int, versionMinor: Int
    /// Called once when the client connection closes before `end()`; the body can no longer be sent.
    public var onClose: (() -> Void)?
    /// Called when the output buffer has drained below the low watermark after a `write`.
    public var onDrained: (() -> Void)?
    /// True after the connection closed under a streamed reply.
    public internal(set) var isGone = false
    /// True once the response head went out.
    public internal(set) var headSent = false {
        didSet { if headSent && headSentAt == nil { headSentAt = EventLoop.monotonic() } }
    }
    /// When the response's status line and fields were handed to evhttp (monotonic seconds):
    /// the time to first byte, as eddy can see it.
    public private(set) var headSentAt: Double?
    /// True once the response is complete (or abandoned).
    public internal(set) var isFinished = false
    /// The status sent, for the access log.
    public internal(set) var status = 0
    /// Body bytes handed to the connection, for the access log.
    public internal(set) var bodyBytesSent = 0
    /// Pieces up to this size are copied rather than sent with sendfile.
    public static let copyThreshold = 64 << 10
    var segment: OpaquePointer?
    var segmentFD: Int32 = -1

    init(raw: OpaquePointer, server: HTTPServer) {
        self.raw = raw
        self.server = server
        switch evhttp_request_get_command(raw) {
        case EVHTTP_REQ_GET: method = "GET"
        case EVHTTP_REQ_HEAD: method = "HEAD"
        case EVHTTP_REQ_POST: method = "POST"
        case EVHTTP_REQ_PUT: method = "PUT"
        case EVHTTP_REQ_DELETE: method = "DELETE"
        case EVHTTP_REQ_OPTIONS: method = "OPTIONS"
        case EVHTTP_REQ_TRACE: method = "TRACE"
        case EVHTTP_REQ_CONNECT: method = "CONNECT"
        case EVHTTP_REQ_PATCH: method = "PATCH"
        default: method = "UNKNOWN"
        }
        uri = evhttp_request_get_uri(raw).map { String(cString: $0) } ?? ""
        var h = HTTPHeaders(capacity: 8) // players send a handful; one allocation, no regrowth
        if let q = evhttp_request_get_input_headers(raw) {
            var kv = eddy_evkeyvalq_first(q)
            while let p = kv {
                h.add(String(cString: p.pointee.key), String(cString: p.pointee.value))
                kv = eddy_evkeyval_next(p)
            }
        }
        headers = h
        var addr: UnsafeMutablePointer<CChar>? = nil
        var port: UInt16 = 0
        if let conn = evhttp_request_get_connection(raw) { evhttp_connection_get_peer(conn, &addr, &port) }
        peer = addr.map { String(cString: $0) } ?? "-"
        var major: CChar = 1, minor: CChar = 1
        eddy_evhttp_request_version(raw, &major, &minor)
        versionMajor = Int(major)
        versionMinor = Int(minor)
        switch (major, minor) {
        case (1, 1): version = "HTTP/1.1"
        case (1, 0): version = "HTTP/1.0"
        default: version = "HTTP/\(major).\(minor)" // interpolation only for the rare ones
        }
    }

    deinit { releaseSegment() }

    /// The request body, as evhttp read it (whole, within `max_body_size`).
    public func body() -> [UInt8] {
        guard let input = evhttp_request_get_input_buffer(raw) else { return [] }
        let n = evbuffer_get_length(input)
        guard n > 0 else { return [] }
        var out = [UInt8](repeating: 0, count: n)
        out.withUnsafeMutableBytes { _ = evbuffer_copyout(input, $0.baseAddress, n) }
        return out
    }

    /// `headers` then `extra`: a stored resource's fields are shared between hits and only a few
    /// (Age, Content-Length, Cache-Status) differ, so they come separately rather than in a copy.
    private func applyHeaders(_ headers: HTTPHeaders, _ extra: HTTPHeaders, status: Int) {
        self.status = status
        let out = evhttp_request_get_output_headers(raw)
        for (n, v) in headers { evhttp_add_header(out, n, v) }
        for (n, v) in extra { evhttp_add_header(out, n, v) }
    }

    private func applyHeaders(_ block: HeaderBlock, _ extra: HTTPHeaders, status: Int) {
        self.status = status
        let out = evhttp_request_get_output_headers(raw)
        for f in block.cFields { evhttp_add_header(out, f.name, f.value) }
        for (n, v) in extra { evhttp_add_header(out, n, v) }
    }

    /// Sends a complete response with `body` (omitted on HEAD by evhttp).
    public func send(status: Int, headers: HTTPHeaders, extra: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        guard !isFinished else { return }
        applyHeaders(headers, extra, status: status)
        reply(status: status, body: body)
    }

    /// `send` with prepared fields.
    public func send(status: Int, headers: HeaderBlock, extra: HTTPHeaders, body: [UInt8] = []) {
        guard !isFinished else { return }
        applyHeaders(headers, extra, status: status)
        reply(status: status, body: body)
    }

    private func reply(status: Int, body: [UInt8]) {
        let buf = evbuffer_new()
        defer { evbuffer_free(buf) }
        if !body.isEmpty && method != "HEAD" {
            body.withUnsafeBytes { _ = evbuffer_add(buf, $0.baseAddress, $0.count) }
        }
        sendReply(status: status, buf)
    }

    /// Hands `buf` to evhttp as the whole body (evhttp moves its chains; the caller frees it).
    private func sendReply(status: Int, _ buf: OpaquePointer?, reason: String? = nil) {
        bodyBytesSent = evbuffer_get_length(buf)
        server.requestFinished(raw)
        server.watchSent(raw)
        evhttp_send_reply(raw, Int32(status), reason ?? ReasonPhrase.of(status), buf)
        headSent = true
        isFinished = true
    }

    /// Sends a complete response whose body is `length` bytes of `bytes` at `offset`, by reference:
    /// no read and no copy until the kernel's. The buffer stays alive until libevent has sent it.
    public func sendShared(status: Int, headers: HeaderBlock, extra: HTTPHeaders, bytes: SharedBytes, offset: Int, length: Int) {
        guard !isFinished, offset >= 0, length > 0, offset + length <= bytes.count else { return }
        let buf = evbuffer_new()
        defer { evbuffer_free(buf) }
        let hold = Unmanaged.passRetained(bytes).toOpaque()
        evbuffer_add_reference(buf, bytes.base + offset, length, { _, _, hold in
            if let hold { Unmanaged<SharedBytes>.fromOpaque(hold).release() }
        }, hold)
        sendComplete(status: status, headers, extra, buf)
    }

    /// Sets the head (in one piece when it can, see `wireHead`) and sends `buf` as the body.
    private func sendComplete(status: Int, _ headers: HeaderBlock, _ extra: HTTPHeaders, _ buf: OpaquePointer?) {
        if let reason = wireHead(headers, extra, status: status) { return sendReply(status: status, buf, reason: reason) }
        applyHeaders(headers, extra, status: status)
        sendReply(status: status, buf)
    }

    /// Sends a complete response whose body is `span`, read into the reply buffer with one pread.
    /// For small stored bodies this replaces start/write/end: no drain callback, watermark or chunk
    /// bookkeeping per hit (seen in the 16 KiB hit profile). Returns false, having sent nothing,
    /// when the file is short.
    public func sendFile(status: Int, headers: HeaderBlock, extra: HTTPHeaders, span: FileSpan) -> Bool {
        guard !isFinished else { return false }
        let fd = span.descriptor, offset = span.offset, length = span.length
        let buf = evbuffer_new()
        defer { evbuffer_free(buf) }
        var vec = iovec() // evbuffer_iovec is a #define of iovec
        guard evbuffer_reserve_space(buf, length, &vec, 1) == 1,
              pread(fd, vec.iov_base, length, off_t(offset)) == length else { return false }
        vec.iov_len = length
        evbuffer_commit_space(buf, &vec, 1)
        sendComplete(status: status, headers, extra, buf)
        return true
    }

    /// Sends a complete response whose body is `span`: one pread for a small one (`sendFile`),
    /// otherwise the whole span queued at once as a sendfile segment, which holds no bytes in
    /// memory however long it is. Returns false, having sent nothing, when the file is short or
    /// no descriptor is left for the segment's copy. Otherwise `whenSent` runs once, when the file
    /// is no longer read for this response (the last byte left, or the connection closed).
    public func sendFileWhole(status: Int, headers: HeaderBlock, extra: HTTPHeaders, span: FileSpan,
                              whenSent: @escaping () -> Void) -> Bool {
        guard !isFinished, !headSent, span.length > 0 else { return false }
        if span.length <= ServerRequest.copyThreshold {
            guard sendFile(status: status, headers: headers, extra: extra, span: span) else { return false }
            whenSent() // read into the reply already
            return true
        }
        guard !isGone, copySegmentReady(span.descriptor) else { return false }
        start(status: status, headers: headers, extra: extra)
        writeFile(span)
        end(whenSent: whenSent)
        return true
    }

    /// Sends a short plain-text error: one line saying why.
    public func sendError(_ status: Int, _ reason: String, extra: HTTPHeaders = HTTPHeaders(), close: Bool = false) {
        let (h, body) = ServerRequest.errorReply(status, reason, extra: extra, close: close)
        send(status: status, headers: h, body: body)
    }

    /// Sends the head of a streamed response. Put `Content-Length` in `headers` whenever it is known:
    /// evhttp then does not switch to chunked encoding.
    public func start(status: Int, headers: HTTPHeaders, extra: HTTPHeaders = HTTPHeaders()) {
        guard !isFinished, !headSent else { return }
        applyHeaders(headers, extra, status: status)
        startReply(status: status)
    }

    /// `start` with prepared fields.
    public func start(status: Int, headers: HeaderBlock, extra: HTTPHeaders) {
        guard !isFinished, !headSent else { return }
        applyHeaders(headers, extra, status: status)
        startReply(status: status)
    }

    private func startReply(status: Int) {
        evhttp_send_reply_start(raw, Int32(status), ReasonPhrase.of(status))
        headSent = true
        if let conn = evhttp_request_get_connection(raw) {
            server.activeRequests[conn] = self
            // Keep the socket busy: wake the writer while 64 KiB are still queued, not at empty.
            if let bev = evhttp_connection_get_bufferevent(conn) { bufferevent_setwatermark(bev, eddy_EV_WRITE, 64 << 10, 0) }
        }
    }

    /// Bytes queued in the connection's output buffer and not yet sent.
    public var queuedBytes: Int {
        guard !isGone, let out = eddy_evhttp_request_conn_output(raw) else { return 0 }
        return evbuffer_get_length(out)
    }

    /// Completes a streamed response. After a close, this frees the detached request (evhttp
    /// requires the call even then, or the request leaks). `whenSent` runs once the last byte has
    /// left the output buffer, or the connection closed first: until then file segments queued for
    /// sendfile still read the file, so its bytes must stay (see `ResourceCoordinator` tickets).
    public func end(whenSent: (() -> Void)? = nil) {
        guard headSent, !isFinished else { whenSent?(); return }
        isFinished = true
        onDrained = nil
        server.requestFinished(raw)
        guard let conn = evhttp_request_get_connection(raw), !isGone else {
            evhttp_send_reply_end(raw)
            whenSent?()
            return
        }
        if server.activeRequests[conn] === self { server.activeRequests[conn] = nil }
        // evhttp_send_reply_end finishes the request from the write callback, which fires at the
        // low watermark, not at empty: with 64 KiB raised, the tail of the body could be cut off.
        if let bev = evhttp_connection_get_bufferevent(conn) { bufferevent_setwatermark(bev, eddy_EV_WRITE, 0, 0) }
        if let whenSent {
            onSent = whenSent
            server.sending[conn] = self
        }
        server.watchSent(raw)
        evhttp_send_reply_end(raw)
    }

    /// Runs `whenSent` of `end`, once: the reply went out, or its connection closed.
    func sent() {
        guard let cb = onSent else { return }
        onSent = nil
        cb()
    }

    private var onSent: (() -> Void)?

    /// Ends a streamed response by closing the connection, so the client sees a short body and
    /// cannot mistake it for a complete one.
    public func abort() {
        guard headSent, !isFinished else { return }
        if !isGone, let conn = evhttp_request_get_connection(raw), let bev = evhttp_connection_get_bufferevent(conn) {
            // Shutting the socket down makes the pending write fail; evhttp then frees the connection.
            shutdown(bufferevent_getfd(bev), Int32(SHUT_RDWR))
        }
        end()
    }

    func connectionClosed() {
        guard !isGone else { return }
        isGone = true
        let cb = onClose
        onClose = nil
        onDrained = nil
        cb?()
    }
}
