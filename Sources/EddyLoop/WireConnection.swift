import CLibevent
import EddyCore
import Glibc

/// One client connection of `WireServer`: eddy's own HTTP/1.1 layer on libevent, in place of
/// evhttp's (issue 33). Not yet the one clients reach: it serves `wirebench`, which weighs it
/// against evhttp, while it grows what `ServerRequest` needs.
///
/// It works as nginx does, for the same reasons (measured in bench/RESULTS.md): a response is
/// written at once from the handler, and EPOLLOUT is registered only when the socket would
/// block, where a bufferevent registers and removes it for every reply (two `epoll_ctl`); reads
/// go straight into the input buffer's free space, without the `ioctl(FIONREAD)` evbuffer_read
/// makes before each. One request is answered at a time: bytes of a pipelined request wait in
/// the input buffer, and reading stops once a head's worth is queued behind a response.
public final class WireConnection {
    let fd: Int32
    unowned let server: WireServer
    private var readEvent: OpaquePointer?
    private var writeEvent: OpaquePointer?
    private let input = evbuffer_new()!
    private let output = evbuffer_new()!
    private var parser: RequestHeadParser
    /// A request is being answered: its response is not wholly written yet.
    private(set) var answering = false
    private var closeAfterResponse = false
    private var writeArmed = false
    private var readPaused = false
    private(set) var closed = false

    init(fd: Int32, server: WireServer, limits: RequestHeadParser.Limits) {
        self.fd = fd
        self.server = server
        parser = RequestHeadParser(limits: limits)
        let me = Unmanaged.passUnretained(self).toOpaque()
        readEvent = event_new(server.loop.base, fd, eddy_EV_READ | eddy_EV_PERSIST, { _, _, arg in
            Unmanaged<WireConnection>.fromOpaque(arg!).takeUnretainedValue().readable()
        }, me)
        writeEvent = event_new(server.loop.base, fd, eddy_EV_WRITE | eddy_EV_PERSIST, { _, _, arg in
            Unmanaged<WireConnection>.fromOpaque(arg!).takeUnretainedValue().flush()
        }, me)
        event_add(readEvent, nil)
    }

    deinit {
        if let readEvent { event_free(readEvent) }
        if let writeEvent { event_free(writeEvent) }
        evbuffer_free(input)
        evbuffer_free(output)
    }

    /// Reads what the socket has (one `recv` into the buffer's free space), then looks for a request.
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

    /// Takes the next request out of the input, unless one is being answered.
    private func process() {
        guard !closed else { return }
        if answering {
            // Pipelined bytes wait; past a head's worth, stop reading until the response is out.
            if evbuffer_get_length(input) > parser.limits.maxHeadBytes { pauseReading(true) }
            return
        }
        let count = evbuffer_get_length(input)
        guard count > 0 else { return }
        let bytes = UnsafeRawBufferPointer(start: evbuffer_pullup(input, -1), count: count)
        switch parser.parse(bytes) {
        case .incomplete:
            return
        case let .invalid(status, reason):
            answering = true
            pauseReading(true)
            respondError(status, reason)
        case let .head(head, length):
            parser.reset()
            guard head.body == .none else {
                // Request bodies are not read yet: refuse rather than misread the next request.
                answering = true
                pauseReading(true)
                return respondError(501, "request bodies are not read by this connection layer yet")
            }
            evbuffer_drain(input, length)
            answering = true
            closeAfterResponse = !head.keepAlive
            server.handler(WireRequest(connection: self, head: head))
        }
    }

    /// Queues a complete response: `head` (status line and fields, blank line included), then
    /// `count` bytes at `body` held by `owner` until sent. Writes at once.
    func send(head: String, body: UnsafeRawPointer?, count: Int, owner: AnyObject?) {
        var head = head
        head.withUTF8 { _ = evbuffer_add(output, $0.baseAddress, $0.count) }
        if let body, count > 0 {
            if let owner {
                let hold = Unmanaged.passRetained(owner).toOpaque()
                evbuffer_add_reference(output, body, count, { _, _, hold in
                    if let hold { Unmanaged<AnyObject>.fromOpaque(hold).release() }
                }, hold)
            } else {
                evbuffer_add(output, body, count)
            }
        }
        flush()
    }

    /// Writes what is queued; registers for EPOLLOUT only while the socket would block.
    private func flush() {
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
        if !pending && answering { responseWritten() }
    }

    /// The response is out: close, or take the next request.
    private func responseWritten() {
        answering = false
        if closeAfterResponse { return close() }
        pauseReading(false)
        process()
    }

    private func pauseReading(_ pause: Bool) {
        guard pause != readPaused, !closed else { return }
        readPaused = pause
        if pause { event_del(readEvent) } else { event_add(readEvent, nil) }
    }

    private func respondError(_ status: Int, _ reason: String) {
        closeAfterResponse = true
        let body = reason + "\n"
        let head = "HTTP/1.1 \(status) \(ReasonPhrase.of(status))\r\nContent-Type: text/plain; charset=utf-8\r\n"
            + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body
        send(head: head, body: nil, count: 0, owner: nil)
    }

    /// Closes the socket and, unless the server is going (`notify` false), leaves its list.
    func close(notify: Bool = true) {
        guard !closed else { return }
        closed = true
        event_del(readEvent)
        event_del(writeEvent)
        Glibc.close(fd)
        if notify { server.forget(self) }
    }
}
