import EddyCore
import Glibc

/// A client request accepted on a worker loop and answered from another loop, the home of the
/// resources (see `Proxy`): the exchange runs at home against this, and every call that answers
/// is carried to the connection's loop through its mailbox, in order, where the real
/// `ServerRequest` makes it. What libevent reports back (the connection closed, the output
/// drained) comes home the same way. File bytes still leave with sendfile from the connection's
/// loop: a `writeFile` carries a descriptor, not bytes.
///
/// The state an exchange reads (`headSent`, `status`, `bodyBytesSent`...) is kept here as the
/// calls are made, so reading it never crosses threads. `queuedBytes` counts what was handed over
/// since the connection last reported its queue, so it errs high and flow control stays safe.
public final class RemoteRequest: ClientRequest {
    /// Touched on the connection's loop only (jobs posted to `connection`).
    private let local: ServerRequest
    private let connection: LoopMailbox
    private let home: LoopMailbox
    public let method: String
    public let uri: String
    public let headers: HTTPHeaders
    public let peer: String
    public let version: String
    private let requestBody: [UInt8]
    public let bodyStream: RequestBodyStream?
    public var onClose: (() -> Void)?
    public var onDrained: (() -> Void)?
    public private(set) var isGone = false
    public private(set) var headSent = false
    public private(set) var headSentAt: Double?
    public private(set) var isFinished = false
    public private(set) var status = 0
    public private(set) var bodyBytesSent = 0
    private var queued = 0
    /// Body bytes handed to the connection's loop so far.
    private var handed = 0
    /// Body bytes the connection's loop has queued on its connection so far (touched there only).
    private let applied = Tally()
    private final class Tally { var bytes = 0 }
    /// The `whenSent` of `end`, held here and run and dropped on this loop: what it captures (an
    /// exchange's ticket) must not be freed on the connection's loop, which only passes it back.
    private final class Pending { var callback: (() -> Void)? }
    private var pendingSent: Pending?
    /// This request's copy of the cache's descriptor it last wrote from (`writeFile`): the cache
    /// may close its own before the connection's loop reads, so the copy goes along and is closed
    /// there after the last call that uses it.
    private var fileCopy: (source: Int32, copy: Int32)?

    /// Made on the connection's loop (it reads the request there), then used only at `home`.
    public init(_ local: ServerRequest, connection: LoopMailbox, home: LoopMailbox) {
        self.local = local
        self.connection = connection
        self.home = home
        method = local.method
        uri = local.uri
        headers = local.headers
        peer = local.peer
        version = local.version
        requestBody = local.body()
        bodyStream = local.bodyStream // read at home; the stream wakes each side on its own loop
        // Weak: the exchange at home decides how long this lives; a report for a request already
        // gone is dropped.
        local.onClose = { [weak self, home] in
            home.post { self?.connectionClosed() }
        }
        local.onDrained = { [weak self, home, local, applied] in
            let left = local.queuedBytes, done = applied.bytes
            home.post { self?.drained(queued: left, applied: done) }
        }
    }

    deinit {
        pendingSent?.callback = nil // here, at home, if the connection never sent it back
        // The connection's request is released on its own loop, with the descriptor copy.
        let (local, copy) = (local, fileCopy?.copy)
        connection.post {
            withExtendedLifetime(local) {}
            if let copy { close(copy) }
        }
    }

    private func connectionClosed() {
        guard !isGone else { return }
        isGone = true
        let cb = onClose
        onClose = nil
        onDrained = nil
        cb?()
    }

    /// The connection had `left` bytes queued once it had queued `applied` of those handed over:
    /// what was handed over since is queued too (its jobs had not run yet). Counting only `left`
    /// let a response run ahead of what its client had taken, so that blocks still queued for
    /// sendfile fell out of the range the coordinator protects from eviction (zeros sent).
    private func drained(queued left: Int, applied: Int) {
        queued = left + (handed - applied)
        onDrained?()
    }

    /// Runs `op` with the connection's request, on its loop.
    private func there(_ op: @escaping (ServerRequest) -> Void) {
        let local = local
        connection.post { op(local) }
    }

    private func headGoes(_ status: Int) {
        self.status = status
        headSent = true
        if headSentAt == nil { headSentAt = EventLoop.monotonic() }
    }

    /// A whole reply went: `bodyBytes` as evhttp counts them (none for HEAD).
    private func replied(_ status: Int, bodyBytes: Int) {
        headGoes(status)
        bodyBytesSent = method == "HEAD" ? 0 : bodyBytes
        isFinished = true
    }

    public var queuedBytes: Int { isGone ? 0 : queued }

    public func body() -> [UInt8] { requestBody }

    public func send(status: Int, headers: HTTPHeaders, extra: HTTPHeaders, body: [UInt8]) {
        guard !isFinished else { return }
        replied(status, bodyBytes: body.count)
        there { $0.send(status: status, headers: headers, extra: extra, body: body) }
    }

    public func send(status: Int, headers: HeaderBlock, extra: HTTPHeaders, body: [UInt8]) {
        guard !isFinished else { return }
        replied(status, bodyBytes: body.count)
        there { $0.send(status: status, headers: headers, extra: extra, body: body) }
    }

    public func sendShared(status: Int, headers: HeaderBlock, extra: HTTPHeaders, bytes: SharedBytes, offset: Int, length: Int) {
        guard !isFinished, offset >= 0, length > 0, offset + length <= bytes.count else { return }
        replied(status, bodyBytes: length)
        there { $0.sendShared(status: status, headers: headers, extra: extra, bytes: bytes, offset: offset, length: length) }
    }

    /// Reads the span here (a small body, see `ServerRequest.sendFile`): the answer, whether the
    /// file was long enough, is needed before returning. Read into shared bytes the reply then
    /// references on the connection's loop: one copy, where an array would be copied again there.
    public func sendFile(status: Int, headers: HeaderBlock, extra: HTTPHeaders, span: FileSpan) -> Bool {
        guard !isFinished else { return false }
        guard span.length > 0 else {
            send(status: status, headers: headers, extra: extra, body: [])
            return true
        }
        guard let body = SharedBytes(count: span.length, fill: {
            pread(span.descriptor, $0.baseAddress, span.length, off_t(span.offset)) == span.length
        }) else { return false }
        sendShared(status: status, headers: headers, extra: extra, bytes: body, offset: 0, length: span.length)
        return true
    }

    /// The bytes of `span`, read here; nil when the file is shorter.
    private static func bytes(of span: FileSpan) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: span.length)
        let n = bytes.withUnsafeMutableBytes { pread(span.descriptor, $0.baseAddress, span.length, off_t(span.offset)) }
        return n == span.length ? bytes : nil
    }

    public func sendError(_ status: Int, _ reason: String, extra: HTTPHeaders, close: Bool) {
        let (h, body) = RemoteRequest.errorReply(status, reason, extra: extra, close: close)
        send(status: status, headers: h, extra: HTTPHeaders(), body: body)
    }

    public func sendInterim(status: Int, headers: HTTPHeaders) {
        guard !headSent, !isFinished else { return }
        there { $0.sendInterim(status: status, headers: headers) }
    }

    public func start(status: Int, headers: HTTPHeaders, extra: HTTPHeaders) {
        guard !isFinished, !headSent else { return }
        headGoes(status)
        there { $0.start(status: status, headers: headers, extra: extra) }
    }

    public func start(status: Int, headers: HeaderBlock, extra: HTTPHeaders) {
        guard !isFinished, !headSent else { return }
        headGoes(status)
        there { $0.start(status: status, headers: headers, extra: extra) }
    }

    public func writeFile(_ span: FileSpan) {
        guard span.length > 0, !isGone, !isFinished else { return }
        if fileCopy?.source != span.descriptor {
            let old = fileCopy?.copy
            let copy = dup(span.descriptor)
            guard copy >= 0 else {
                // Out of descriptors: the bytes go as a copy (at most a step) rather than not at
                // all, which would stall the response (see `ServerRequest.writeFile`).
                RemoteRequest.bytes(of: span)?.withUnsafeBytes { write($0) }
                return
            }
            fileCopy = (span.descriptor, copy)
            // The connection's request keys its sendfile segment by descriptor number: a new copy
            // may reuse an old number for another file, so the old segment goes first.
            there { local in
                local.releaseSegment()
                if let old { close(old) }
            }
        }
        let piece = FileSpan(descriptor: fileCopy!.copy, offset: span.offset, length: span.length)
        bodyBytesSent += span.length
        queued += span.length
        handed += span.length
        let applied = applied
        there {
            $0.writeFile(piece)
            applied.bytes += piece.length
        }
    }

    public func write(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty, !isGone, !isFinished else { return }
        let copy = [UInt8](bytes)
        bodyBytesSent += copy.count
        queued += copy.count
        handed += copy.count
        let applied = applied
        there { local in
            copy.withUnsafeBytes { local.write($0) }
            applied.bytes += copy.count
        }
    }

    public func end(whenSent: (() -> Void)?) {
        guard headSent, !isFinished else { whenSent?(); return }
        isFinished = true
        onDrained = nil
        let home = home
        // `whenSent` belongs to the exchange's loop (it releases a ticket there).
        var sent: (() -> Void)?
        if let whenSent {
            let pending = Pending()
            pending.callback = whenSent
            pendingSent = pending
            sent = {
                home.post {
                    let cb = pending.callback
                    pending.callback = nil
                    cb?()
                }
            }
        }
        there { $0.end(whenSent: sent) }
    }

    public func abort() {
        guard headSent, !isFinished else { return }
        isFinished = true
        onDrained = nil
        there { $0.abort() }
    }
}
