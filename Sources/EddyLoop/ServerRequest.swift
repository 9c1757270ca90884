import CLibevent
import EddyCore
import Glibc

/// A request read by `ClientConnection`, and its response: the `ClientRequest` eddy's exchanges
/// answer on the loop that holds the connection.
///
/// Responses are sent whole (`send...`) or streamed: `start` writes the head (Content-Length
/// when the fields give it; otherwise chunked for a 1.1 client, or until close for 1.0), then
/// `write`/`writeFile` queue body bytes, `onDrained` fires once the queue falls to
/// `ClientConnection.lowWater` after a write, and `end` completes it.
public final class ServerRequest: ClientRequest {
    /// The request's head as parsed.
    public let head: RequestHead
    let connection: ClientConnection
    public var method: String { head.method }
    public var uri: String { head.target }
    public var headers: HTTPHeaders { head.headers }
    public var version: String { head.version }
    /// The version's numbers.
    public var versionMajor: Int { head.major }
    public var versionMinor: Int { head.minor }
    /// Pieces of a streamed body up to this size are copied rather than queued as sendfile
    /// segments; a complete response's span up to it goes out at once (`sendFile`).
    public static let copyThreshold = 64 << 10
    /// A complete response's file body from this size goes straight from the page cache to an
    /// idle socket (`ClientConnection.sendHead(_:thenFile:)`) rather than through a copy; under it,
    /// a copy (or the memory tier's bytes) costs less than sendfile's extra work.
    public static let sendfileThreshold = 16 << 10
    public var peer: String { connection.peer }
    public var onClose: (() -> Void)?
    public var onDrained: (() -> Void)?
    public internal(set) var isGone = false
    public internal(set) var headSent = false
    public private(set) var headSentAt: Double?
    public internal(set) var isFinished = false
    public internal(set) var status = 0
    public internal(set) var bodyBytesSent = 0
    public var queuedBytes: Int { isGone ? 0 : connection.queued }
    /// The request body, read whole before the handler was called (within the body limit), unless
    /// it is streamed (`bodyStream`).
    var bodyBytes: [UInt8] = []
    public internal(set) var bodyStream: RequestBodyStream?
    /// How the response's body is framed, once its head is out.
    var framing = ResponseHead.Framing.none
    /// The response persists the connection.
    var keepAlive = true
    /// A `write` waits for `onDrained`.
    var drainArmed = false
    /// Runs once the last byte left, or the connection closed first.
    var whenSent: (() -> Void)?
    /// The sendfile segment of the file last written, and the descriptor it duplicates.
    var segment: OpaquePointer?
    var segmentFD: Int32 = -1

    init(connection: ClientConnection, head: RequestHead) {
        self.connection = connection
        self.head = head
    }

    deinit { if let segment { evbuffer_file_segment_free(segment) } }

    public func body() -> [UInt8] { bodyBytes }

    /// Writes the head of a response (`fields` in order after the prebuilt text); `bodyLength`
    /// when the whole body is at hand.
    func writeHead(status: Int, prebuilt: (text: String, hasDate: Bool) = ("", false), fields: [HTTPHeaders], bodyLength: Int?) {
        let h = responseHead(status: status, prebuilt: prebuilt, fields: fields, bodyLength: bodyLength)
        headWritten(h, status: status)
        h.bytes.withUnsafeBytes { connection.queue($0) }
    }

    /// The head of a response to this request.
    private func responseHead(status: Int, prebuilt: (text: String, hasDate: Bool), fields: [HTTPHeaders], bodyLength: Int?) -> ResponseHead {
        ResponseHead(status: status, reason: ReasonPhrase.of(status), method: head.method, minor: head.minor,
                     requestKeepAlive: head.keepAlive, fields: fields, prebuilt: prebuilt.text,
                     prebuiltHasDate: prebuilt.hasDate, bodyLength: bodyLength, date: connection.server.date)
    }

    /// Takes on the state of `h`, about to go out (the socket's unsent limit must be set first).
    private func headWritten(_ h: ResponseHead, status: Int) {
        self.status = status
        framing = h.framing
        switch framing {
        case let .length(n): connection.limitUnsent(n >= HTTPServer.largeBody)
        case .chunked, .untilClose: connection.limitUnsent(true) // a length unknown: it may be long
        case .none: break
        }
        keepAlive = h.keepAlive
        headSent = true
        headSentAt = EventLoop.monotonic()
    }

    /// The head's parts for `block`: its verbatim text and the fields the connection must see.
    /// Date is one of those (`connectionOwns`), so the verbatim text never holds one.
    private func parts(_ block: HeaderBlock, _ extra: HTTPHeaders) -> ((String, Bool), [HTTPHeaders]) {
        guard let wire = block.wire else { return (("", false), [block.headers, extra]) }
        return ((wire, false), block.ownedFields.fields.isEmpty ? [extra] : [block.ownedFields, extra])
    }

    /// Sends the body bytes of a complete response, then completes it.
    private func complete(_ body: UnsafeRawBufferPointer?, owner: AnyObject? = nil) {
        if case .length = framing, let body, !body.isEmpty {
            if let owner { connection.queueReference(body, owner: owner) } else { connection.queue(body) }
            bodyBytesSent = body.count
        }
        finish(whenSent: nil)
    }

    public func send(status: Int, headers: HTTPHeaders, extra: HTTPHeaders, body: [UInt8]) {
        guard !isFinished, !headSent else { return }
        writeHead(status: status, fields: [headers, extra], bodyLength: body.count)
        body.withUnsafeBytes { complete($0) }
    }

    public func send(status: Int, headers: HeaderBlock, extra: HTTPHeaders, body: [UInt8]) {
        guard !isFinished, !headSent else { return }
        let (prebuilt, fields) = parts(headers, extra)
        writeHead(status: status, prebuilt: prebuilt, fields: fields, bodyLength: body.count)
        body.withUnsafeBytes { complete($0) }
    }

    public func sendShared(status: Int, headers: HeaderBlock, extra: HTTPHeaders, bytes: SharedBytes, offset: Int, length: Int) {
        guard !isFinished, !headSent, offset >= 0, length > 0, offset + length <= bytes.count else { return }
        let (prebuilt, fields) = parts(headers, extra)
        writeHead(status: status, prebuilt: prebuilt, fields: fields, bodyLength: length)
        complete(UnsafeRawBufferPointer(start: bytes.base + offset, count: length), owner: bytes)
    }

    /// Sends a complete response whose body is `span`: from `sendfileThreshold` on, onto an idle
    /// connection, the head and then the span with sendfile straight to the socket; otherwise
    /// read with one pread into a buffer whose chains then move behind the head (no second copy).
    /// Returns false, having sent nothing, when the file is short.
    public func sendFile(status: Int, headers: HeaderBlock, extra: HTTPHeaders, span: FileSpan) -> Bool {
        guard !isFinished, !headSent else { return false }
        if span.length >= ServerRequest.sendfileThreshold, connection.writesDirectly {
            let (prebuilt, fields) = parts(headers, extra)
            let h = responseHead(status: status, prebuilt: prebuilt, fields: fields, bodyLength: span.length)
            if h.framing == .length(span.length) {
                guard connection.holds(span) else { return false }
                headWritten(h, status: status)
                h.bytes.withUnsafeBytes { connection.sendHead($0, thenFile: span) }
                bodyBytesSent = span.length
                finish(whenSent: nil)
                return true
            }
        }
        if connection.tls != nil, span.length > ServerRequest.copyThreshold {
            // Through TLS a long span is read as the connection drains, never whole.
            guard connection.holds(span) else { return false }
            let (prebuilt, fields) = parts(headers, extra)
            writeHead(status: status, prebuilt: prebuilt, fields: fields, bodyLength: span.length)
            if case .length = framing {
                guard connection.queueFeed(span) else { connection.close(); return true }
                bodyBytesSent = span.length
            }
            finish(whenSent: nil)
            return true
        }
        guard let body = evbuffer_new() else { return false }
        defer { evbuffer_free(body) }
        var vec = iovec() // evbuffer_iovec is a #define of iovec
        guard span.length > 0, evbuffer_reserve_space(body, span.length, &vec, 1) == 1,
              pread(span.descriptor, vec.iov_base, span.length, off_t(span.offset)) == span.length else { return false }
        vec.iov_len = span.length
        evbuffer_commit_space(body, &vec, 1)
        let (prebuilt, fields) = parts(headers, extra)
        writeHead(status: status, prebuilt: prebuilt, fields: fields, bodyLength: span.length)
        if case .length = framing {
            connection.queue(buffer: body)
            bodyBytesSent = span.length
        }
        finish(whenSent: nil)
        return true
    }

    /// Sends a complete response whose body is `span`: one read for a small one (`sendFile`),
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
        guard !isGone else { return false }
        if span.length < HTTPServer.largeBody, connection.writesDirectly {
            // An idle connection: the head and what the socket takes of the body go now, the
            // head with MSG_MORE so that both leave in one segment (one write and no segment
            // for a body the socket takes whole, as a 1 MiB hit on a fast link is). Below
            // `largeBody` only: the rest, when the socket is full, is a segment, or on running
            // out of descriptors a copy, which stays bounded so.
            let (prebuilt, fields) = parts(headers, extra)
            let h = responseHead(status: status, prebuilt: prebuilt, fields: fields, bodyLength: span.length)
            if h.framing == .length(span.length) {
                guard connection.holds(span) else { return false }
                headWritten(h, status: status)
                let sent = h.bytes.withUnsafeBytes { connection.sendDirect($0, thenFile: span) }
                bodyBytesSent = sent
                if sent < span.length {
                    writeFile(FileSpan(descriptor: span.descriptor, offset: span.offset + sent, length: span.length - sent))
                }
                end(whenSent: whenSent)
                return true
            }
        }
        guard connection.tls != nil || segmentReady(span.descriptor) else { return false }
        start(status: status, headers: headers, extra: extra)
        writeFile(span)
        end(whenSent: whenSent)
        return true
    }

    public func sendError(_ status: Int, _ reason: String, extra: HTTPHeaders, close: Bool) {
        let (h, body) = ServerRequest.errorReply(status, reason, extra: extra, close: close)
        send(status: status, headers: h, extra: HTTPHeaders(), body: body)
    }

    public func start(status: Int, headers: HTTPHeaders, extra: HTTPHeaders) {
        guard !isFinished, !headSent else { return }
        writeHead(status: status, fields: [headers, extra], bodyLength: nil)
        connection.flush()
    }

    public func start(status: Int, headers: HeaderBlock, extra: HTTPHeaders) {
        guard !isFinished, !headSent else { return }
        let (prebuilt, fields) = parts(headers, extra)
        writeHead(status: status, prebuilt: prebuilt, fields: fields, bodyLength: nil)
        connection.flush()
    }

    public func sendInterim(status: Int, headers: HTTPHeaders) {
        guard !headSent, !isGone, !isFinished,
              let bytes = InterimHead.encode(status: status, headers: headers, clientMajor: head.major, clientMinor: head.minor)
        else { return }
        bytes.withUnsafeBytes { connection.queue($0) }
        connection.flush()
    }

    /// Completes a streamed response: the last chunk when chunked, then `whenSent` once the
    /// last byte left (or the connection closed first).
    public func end(whenSent: (() -> Void)?) {
        guard headSent, !isFinished else { whenSent?(); return }
        finish(whenSent: whenSent)
    }

    func finish(whenSent: (() -> Void)?) {
        isFinished = true
        onDrained = nil
        drainArmed = false
        guard !isGone else { whenSent?(); return }
        if framing == .chunked { connection.queue(ResponseHead.lastChunk) }
        // A body that ends short of its declared length can not be completed on this connection:
        // the client would take the next response's first bytes for the rest of this one. Closing
        // after the queued bytes shows it a short body instead (RFC 9112 section 8).
        if case let .length(n) = framing, bodyBytesSent < n { keepAlive = false }
        self.whenSent = whenSent
        connection.responseEnded(self)
    }

    /// Ends a streamed response by closing the connection, so the client sees a short body.
    public func abort() {
        guard headSent, !isFinished else { return }
        isFinished = true
        connection.close()
    }

    /// The connection closed: the body can no longer be sent.
    func connectionClosed() {
        let sent = whenSent
        whenSent = nil
        sent?()
        guard !isGone else { return }
        isGone = true
        let cb = onClose
        onClose = nil
        onDrained = nil
        cb?()
    }
}
