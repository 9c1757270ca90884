import EddyCore

/// What an exchange sees of its client: the request, and the calls that answer it.
///
/// `ServerRequest` is the client's request on the exchange's own loop; `RemoteRequest` is one
/// whose connection lives on another loop (a worker accepted it), with every call carried there
/// through a mailbox. Exchanges are written once against this and run on the resource's home loop
/// either way. All members are used on the exchange's loop only.
public protocol ClientRequest: AnyObject {
    var method: String { get }
    var uri: String { get }
    var headers: HTTPHeaders { get }
    var peer: String { get }
    var version: String { get }
    /// Called once when the client connection closes under a streamed reply.
    var onClose: (() -> Void)? { get set }
    /// Called when the output has drained below its low watermark after a write.
    var onDrained: (() -> Void)? { get set }
    var isGone: Bool { get }
    var headSent: Bool { get }
    var headSentAt: Double? { get }
    var isFinished: Bool { get }
    var status: Int { get }
    var bodyBytesSent: Int { get }
    /// Bytes handed over and not yet sent (an upper bound for a remote connection).
    var queuedBytes: Int { get }
    /// The request body when it was read whole before the request was handed over; empty when
    /// it is streamed.
    func body() -> [UInt8]
    /// A body larger than `HTTPServerLimits.streamBodiesAbove`, still arriving: read it from here
    /// (with back-pressure on the client) instead of `body()`.
    var bodyStream: RequestBodyStream? { get }
    func send(status: Int, headers: HTTPHeaders, extra: HTTPHeaders, body: [UInt8])
    func send(status: Int, headers: HeaderBlock, extra: HTTPHeaders, body: [UInt8])
    func sendShared(status: Int, headers: HeaderBlock, extra: HTTPHeaders, bytes: SharedBytes, offset: Int, length: Int)
    func sendFile(status: Int, headers: HeaderBlock, extra: HTTPHeaders, span: FileSpan) -> Bool
    func sendError(_ status: Int, _ reason: String, extra: HTTPHeaders, close: Bool)
    func start(status: Int, headers: HTTPHeaders, extra: HTTPHeaders)
    /// Sends an interim (1xx) head before the final response, e.g. 103 Early Hints (RFC 8297); a
    /// no-op once the head went out or for an HTTP/1.0 client (RFC 9110 section 15.2).
    func sendInterim(status: Int, headers: HTTPHeaders)
    func start(status: Int, headers: HeaderBlock, extra: HTTPHeaders)
    func writeFile(_ span: FileSpan)
    func write(_ bytes: UnsafeRawBufferPointer)
    func end(whenSent: (() -> Void)?)
    func abort()
}

extension ClientRequest {
    public func send(status: Int, headers: HTTPHeaders, extra: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        send(status: status, headers: headers, extra: extra, body: body)
    }
    public func send(status: Int, headers: HeaderBlock, extra: HTTPHeaders) {
        send(status: status, headers: headers, extra: extra, body: [])
    }
    public func sendError(_ status: Int, _ reason: String, extra: HTTPHeaders = HTTPHeaders(), close: Bool = false) {
        sendError(status, reason, extra: extra, close: close)
    }
    public func start(status: Int, headers: HTTPHeaders) {
        start(status: status, headers: headers, extra: HTTPHeaders())
    }
    public func end() { end(whenSent: nil) }

    /// Relays bytes from a source that can be paused (an upstream transfer): queues them unless more
    /// than `highWater` bytes wait already. false means "not taken"; the source must pause and offer
    /// the same bytes again after `onDrained` (curl redelivers paused data, so nothing is written twice).
    public func relay(_ bytes: UnsafeRawBufferPointer, highWater: Int) -> Bool {
        if queuedBytes > highWater { return false }
        write(bytes)
        return true
    }

    /// The short plain-text error both kinds of request send: one line saying why.
    static func errorReply(_ status: Int, _ reason: String, extra: HTTPHeaders, close: Bool) -> (HTTPHeaders, [UInt8]) {
        var h = extra
        h.set("Content-Type", "text/plain; charset=utf-8")
        if close { h.set("Connection", "close") }
        return (h, Array("\(status) \(ReasonPhrase.of(status)): \(reason)\n".utf8))
    }
}
