import CLibevent
import EddyCore
import Glibc

/// One client connection of `WireServer`: eddy's own HTTP/1.1 layer on libevent, in place of
/// evhttp's (issue 33). Not yet the one clients reach: it serves `wirebench`, which weighs it
/// against evhttp, while it grows what `ServerRequest` does.
///
/// It works as nginx does, for the same reasons (measured in bench/RESULTS.md): a response is
/// written at once from the handler, and EPOLLOUT is registered only when the socket would
/// block, where a bufferevent registers and removes it for every reply (two `epoll_ctl`); reads
/// go straight into the input buffer's free space, without the `ioctl(FIONREAD)` evbuffer_read
/// makes before each. One request is answered at a time: bytes of a pipelined request wait in
/// the input buffer, and reading stops once a head's worth is queued behind a response.
public final class WireConnection {
    /// What the connection is doing.
    enum Phase {
        /// Waiting for a request head.
        case head
        /// Reading the body of `request` (whole, within the body limit) before handing it over.
        case body(WireRequest, remaining: Int?, decoder: ChunkedBodyDecoder?)
        /// `request` is being answered; the next head waits.
        case answering(WireRequest)
    }

    /// `onDrained` fires when no more than this waits to be sent after a write.
    static let lowWater = 64 << 10
    let fd: Int32
    unowned let server: WireServer
    /// The client's address, for the access log.
    let peer: String
    private var readEvent: OpaquePointer?
    private var writeEvent: OpaquePointer?
    private var resumeEvent: OpaquePointer?
    let input = evbuffer_new()!
    let output = evbuffer_new()!
    var parser: RequestHeadParser
    var phase = Phase.head
    var closeAfterResponse = false
    private var writeArmed = false
    private var readPaused = false
    private var notifying = false
    private(set) var closed = false

    init(fd: Int32, peer: String, server: WireServer, limits: RequestHeadParser.Limits) {
        (self.fd, self.peer, self.server) = (fd, peer, server)
        parser = RequestHeadParser(limits: limits)
        // File segments go out with sendfile only from a buffer marked as draining to a socket;
        // otherwise libevent would read them into memory first.
        evbuffer_set_flags(output, UInt64(EVBUFFER_FLAG_DRAINS_TO_FD))
        let me = Unmanaged.passUnretained(self).toOpaque()
        readEvent = event_new(server.loop.base, fd, eddy_EV_READ | eddy_EV_PERSIST, { _, _, arg in
            Unmanaged<WireConnection>.fromOpaque(arg!).takeUnretainedValue().readable()
        }, me)
        writeEvent = event_new(server.loop.base, fd, eddy_EV_WRITE | eddy_EV_PERSIST, { _, _, arg in
            Unmanaged<WireConnection>.fromOpaque(arg!).takeUnretainedValue().flush()
        }, me)
        resumeEvent = event_new(server.loop.base, -1, 0, { _, _, arg in
            Unmanaged<WireConnection>.fromOpaque(arg!).takeUnretainedValue().process()
        }, me)
        event_add(readEvent, nil)
    }

    deinit {
        if let readEvent { event_free(readEvent) }
        if let writeEvent { event_free(writeEvent) }
        if let resumeEvent { event_free(resumeEvent) }
        evbuffer_free(input)
        evbuffer_free(output)
    }

    /// Bytes queued and not yet sent.
    var queued: Int { evbuffer_get_length(output) }

    /// Reads what the socket has (one `recv` into the buffer's free space), then goes on.
    private func readable() {
        var vec = iovec()
        guard evbuffer_reserve_space(input, 16 << 10, &vec, 1) == 1 else { return close() }
        let n = recv(fd, vec.iov_base, vec.iov_len, 0)
        if n > 0 {
            vec.iov_len = n
            evbuffer_commit_space(input, &vec, 1)
            return process()
        }
        if n < 0 && (errno == EAGAIN || errno == EINTR) { return }
        close() // the peer closed, or the connection failed
    }

    /// Refuses what can not be read safely and closes after the answer: the framing is in doubt.
    func refuse(_ status: Int, _ reason: String) {
        pauseReading(true)
        let request = WireRequest(connection: self, head: RequestHead(method: "GET", target: "*", keepAlive: false))
        phase = .answering(request)
        closeAfterResponse = true
        request.sendError(status, reason, extra: HTTPHeaders(), close: true)
    }

    // MARK: - Output

    func queue(_ text: String) {
        var text = text
        text.withUTF8 { _ = evbuffer_add(output, $0.baseAddress, $0.count) }
    }

    func queue(_ bytes: UnsafeRawBufferPointer) { evbuffer_add(output, bytes.baseAddress, bytes.count) }

    /// Moves `buffer`'s chains to the end of the output (no copy).
    func queue(buffer: OpaquePointer) { evbuffer_add_buffer(output, buffer) }

    /// Queues `bytes` by reference: `owner` is held until libevent has sent them.
    func queueReference(_ bytes: UnsafeRawBufferPointer, owner: AnyObject) {
        let hold = Unmanaged.passRetained(owner).toOpaque()
        evbuffer_add_reference(output, bytes.baseAddress, bytes.count, { _, _, hold in
            if let hold { Unmanaged<AnyObject>.fromOpaque(hold).release() }
        }, hold)
    }

    /// Queues `length` bytes of a file segment from `offset`; false when libevent refused it.
    func queueFile(_ segment: OpaquePointer, offset: Int, length: Int) -> Bool {
        evbuffer_add_file_segment(output, segment, Int64(offset), Int64(length)) == 0
    }

    /// Writes what is queued; registers for EPOLLOUT only while the socket would block. Then
    /// tells the request being answered that its queue drained, or that it is all sent.
    func flush() {
        guard !closed else { return }
        while evbuffer_get_length(output) > 0 {
            let n = evbuffer_write(output, fd)
            if n < 0 {
                if errno == EAGAIN || errno == EINTR { break }
                return close()
            }
            if n == 0 { break }
        }
        let pending = evbuffer_get_length(output) > 0
        if pending != writeArmed {
            writeArmed = pending
            if pending { event_add(writeEvent, nil) } else { event_del(writeEvent) }
        }
        notify()
    }

    /// Runs `onDrained` while the queue is short (a loop, not recursion: a drained request that
    /// writes more flushes from inside), and completes an ended response once all is sent.
    private func notify() {
        guard !notifying, case let .answering(r) = phase else { return }
        notifying = true
        while !closed, r.drainArmed, !r.isFinished, queued <= WireConnection.lowWater {
            r.drainArmed = false
            r.onDrained?()
        }
        notifying = false
        if !closed, r.isFinished, queued == 0, case let .answering(current) = phase, current === r { responseSent(r) }
    }

    /// `request` ended its response; it completes once its bytes are out.
    func responseEnded(_ request: WireRequest) {
        if !request.keepAlive { closeAfterResponse = true }
        flush()
    }

    /// The response is out: close, or take the next request (a pipelined one on the next turn
    /// of the loop, so that a long pipeline is not answered by recursion).
    private func responseSent(_ request: WireRequest) {
        let sent = request.whenSent
        request.whenSent = nil
        phase = .head
        sent?()
        if closeAfterResponse { return close() }
        pauseReading(false)
        if evbuffer_get_length(input) > 0 { event_active(resumeEvent, 0, 0) }
    }

    func pauseReading(_ pause: Bool) {
        guard pause != readPaused, !closed else { return }
        readPaused = pause
        if pause { event_del(readEvent) } else { event_add(readEvent, nil) }
    }

    /// Closes the socket; the request being answered learns of it. Unless the server is going
    /// (`notify` false), the connection leaves its list.
    func close(notify: Bool = true) {
        guard !closed else { return }
        closed = true
        event_del(readEvent)
        event_del(writeEvent)
        event_del(resumeEvent)
        Glibc.close(fd)
        switch phase {
        case let .answering(r), let .body(r, _, _): r.connectionClosed()
        case .head: break
        }
        if notify { server.forget(self) }
    }
}
