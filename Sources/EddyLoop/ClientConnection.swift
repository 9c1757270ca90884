import CLibevent
import EddyCore
import EddyTLS
import Glibc

/// One client connection of `HTTPServer`: eddy's own HTTP/1.1 layer on libevent, in place of
/// evhttp's (issue 33).
///
/// It works as nginx does, for the same reasons (measured in bench/RESULTS.md): a response is
/// written at once from the handler, and EPOLLOUT is registered only when the socket would
/// block, where a bufferevent registers and removes it for every reply (two `epoll_ctl`); reads
/// go straight into the input buffer's free space, without the `ioctl(FIONREAD)` evbuffer_read
/// makes before each. One request is answered at a time: bytes of a pipelined request wait in
/// the input buffer, and reading stops once a head's worth is queued behind a response.
public final class ClientConnection {
    /// What the connection is doing.
    enum Phase {
        /// Waiting for a request head.
        case head
        /// Reading the body of `request` (whole, within the body limit) before handing it over.
        case body(ServerRequest, remaining: Int?, decoder: ChunkedBodyDecoder?)
        /// `request` is being answered; the next head waits.
        case answering(ServerRequest)
    }

    /// `onDrained` fires when no more than this waits to be sent after a write.
    static let lowWater = 64 << 10
    /// Most bytes one write call and one turn of the loop hand a socket (see `flush`).
    static let writeStep = 256 << 10, writeTurn = 1 << 20
    let fd: Int32
    unowned let server: HTTPServer
    /// The client's address, for the access log.
    let peer: String
    var readEvent: OpaquePointer?
    var writeEvent: OpaquePointer?
    private var notifyEvent: OpaquePointer?
    /// The connection's TLS, on a TLS listener (`ClientConnection+TLS.swift`); nil in plain HTTP.
    let tls: TLSChannel?
    /// A TLS connection's output beyond `output`: file spans read as it drains.
    var feed = OutputFeed()
    /// A TLS read wanted the socket writable (the handshake's flight did not fit).
    var readWantsWrite = false
    let input = evbuffer_new()!
    let output = evbuffer_new()!
    var parser: RequestHeadParser
    var phase = Phase.head
    /// The body of the request being answered, while it still arrives (`startUpload`).
    var upload: Upload?
    var closeAfterResponse = false
    /// The connection closes after a response while the client may still be sending (a body
    /// refused or left unread): it lingers (`linger`) instead of closing at once.
    var lingerAfterResponse = false
    /// While lingering: when the connection closes at the latest.
    var lingerUntil: Double?
    var writeArmed = false
    /// TCP_NOTSENT_LOWAT is set on the socket (`limitUnsent`).
    private var unsentLimited = false
    private(set) var readPaused = false
    private var notifyScheduled = false
    private var inDeferred = false
    private(set) var closed = false
    /// Handed to a tunnel: its events are off and the tunnel reads and writes the socket.
    private(set) var detached = false
    /// Monotonic time of the accept; the newest idle connection is shed first.
    let createdAt = EventLoop.monotonic()
    /// When the first bytes of a request not yet whole arrived; nil otherwise.
    var headerStartedAt: Double?
    /// The last read or write progress, for the idle timeout.
    var lastActivity = EventLoop.monotonic()
    /// Requests received on this connection.
    var requests = 0

    init(fd: Int32, peer: String, server: HTTPServer, limits: RequestHeadParser.Limits, tls: TLSChannel? = nil) {
        (self.fd, self.peer, self.server, self.tls) = (fd, peer, server, tls)
        parser = RequestHeadParser(limits: limits)
        // File segments go out with sendfile only from a buffer marked as draining to a socket;
        // otherwise libevent would read them into memory first. Through TLS no segment is queued
        // (`feed` reads files in steps instead).
        if tls == nil { evbuffer_set_flags(output, UInt64(EVBUFFER_FLAG_DRAINS_TO_FD)) }
        let me = Unmanaged.passUnretained(self).toOpaque()
        readEvent = event_new(server.loop.base, fd, eddy_EV_READ | eddy_EV_PERSIST, { _, _, arg in
            Unmanaged<ClientConnection>.fromOpaque(arg!).takeUnretainedValue().readable()
        }, me)
        writeEvent = event_new(server.loop.base, fd, eddy_EV_WRITE | eddy_EV_PERSIST, { _, _, arg in
            Unmanaged<ClientConnection>.fromOpaque(arg!).takeUnretainedValue().flush()
        }, me)
        notifyEvent = event_new(server.loop.base, -1, 0, { _, _, arg in
            Unmanaged<ClientConnection>.fromOpaque(arg!).takeUnretainedValue().deferred()
        }, me)
        event_add(readEvent, nil)
    }

    deinit {
        if let readEvent { event_free(readEvent) }
        if let writeEvent { event_free(writeEvent) }
        if let notifyEvent { event_free(notifyEvent) }
        evbuffer_free(input)
        evbuffer_free(output)
    }

    /// Bytes queued and not yet sent.
    var queued: Int { evbuffer_get_length(output) + feed.total }

    /// A request is being answered (or its response is still being written).
    var isAnswering: Bool {
        if case .answering = phase { return true }
        return false
    }

    /// Nothing is being answered or sent: closing it loses no response.
    var isIdle: Bool {
        if case .head = phase { return queued == 0 }
        return false
    }

    /// No progress for `seconds` where the client owes it: no request on an idle connection, a
    /// body that stopped arriving, or a response it stopped reading. A response waiting on the
    /// origin (nothing queued) is the exchange's to time out.
    func stalled(now: Double, after seconds: Double) -> Bool {
        if let until = lingerUntil { return now > until }
        guard now - lastActivity > seconds, !detached else { return false }
        switch phase {
        case .head, .body: return true
        case .answering: return queued > 0 || upload.map { !$0.paused } == true
        }
    }

    /// Reads what the socket has (one `recv` into the buffer's free space), then goes on.
    private func readable() {
        if let tls { return readableTLS(tls) }
        var vec = iovec()
        guard evbuffer_reserve_space(input, 16 << 10, &vec, 1) == 1 else { return close() }
        let n = recv(fd, vec.iov_base, vec.iov_len, 0)
        if n > 0, lingerUntil != nil {
            return // discarded: `vec` was never committed
        }
        if n > 0 {
            vec.iov_len = n
            evbuffer_commit_space(input, &vec, 1)
            lastActivity = EventLoop.monotonic()
            if case .head = phase, headerStartedAt == nil { headerStartedAt = lastActivity }
            return process()
        }
        if n < 0 && (errno == EAGAIN || errno == EINTR) { return }
        close() // the peer closed, or the connection failed
    }

    // MARK: - Output (queueing: ClientConnection+Queue.swift)

    /// Whether the socket takes at most `HTTPServer.unsentLowWater` bytes beyond those in flight
    /// (TCP_NOTSENT_LOWAT): on for a large body, off (the system's default) for the rest.
    ///
    /// With the limit, a write stops there and EPOLLOUT waits until less is left, so a client
    /// that stops reading a movie holds 128 KiB of unsent bytes in the kernel, not a send buffer
    /// autotuned to megabytes, and 64 MiB hits moved more bytes for the same CPU (fewer zero
    /// windows). But each wake-up then writes little: on loopback, 1 MiB hits at 64 connections
    /// on one loop moved 0.55 of the bytes they move without it (bench/RESULTS.md, issue 33 tenth
    /// part), so a body under `HTTPServer.largeBody` goes without. Set per response, and only when
    /// it changes: one system call per switch, none for a run of small hits.
    func limitUnsent(_ on: Bool) {
        guard on != unsentLimited, !detached else { return }
        unsentLimited = on
        // 0 restores the system's value (net.ipv4.tcp_notsent_lowat, unlimited by default).
        var value: Int32 = on ? HTTPServer.unsentLowWater : 0
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NOTSENT_LOWAT, &value, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Writes what is queued; registers for EPOLLOUT only while the socket would block. Then,
    /// on the loop's next turn (never from inside the call that wrote, as evhttp did not
    /// either: an exchange's pump is not re-entered), tells the request being answered that its
    /// queue drained, or that it is all sent.
    func flush() {
        guard !closed else { return }
        // At most `writeStep` per call and `writeTurn` per turn of the loop: one client of a large
        // body does not hold the loop while its socket takes megabytes.
        if let tls {
            guard writeTLS(tls) else { return close() }
        } else {
            var written = 0
            while evbuffer_get_length(output) > 0 && written < ClientConnection.writeTurn {
                let n = evbuffer_write_atmost(output, fd, ClientConnection.writeStep)
                if n < 0 {
                    if errno == EAGAIN || errno == EINTR { break }
                    return close()
                }
                if n == 0 { break }
                written += Int(n)
                lastActivity = EventLoop.monotonic()
            }
        }
        let pending = queued > 0 || readWantsWrite
        if pending != writeArmed {
            writeArmed = pending
            if pending { event_add(writeEvent, nil) } else { event_del(writeEvent) }
        }
        if case let .answering(r) = phase, !notifyScheduled, !inDeferred,
           (r.drainArmed && !r.isFinished && queued <= ClientConnection.lowWater) || (r.isFinished && !pending) {
            notifyScheduled = true
            event_active(notifyEvent, 0, 0)
        }
    }

    /// The loop's turn after a flush: `onDrained` while the queue stays short (a loop, not
    /// recursion), then the response's completion; or a pipelined request waiting.
    private func deferred() {
        notifyScheduled = false
        guard !closed else { return }
        guard case let .answering(r) = phase else { return process() }
        inDeferred = true
        while !closed, r.drainArmed, !r.isFinished, queued <= ClientConnection.lowWater {
            r.drainArmed = false
            r.onDrained?()
        }
        inDeferred = false
        if !closed, r.isFinished, queued == 0, case let .answering(current) = phase, current === r { responseSent(r) }
    }

    /// `request` ended its response; it completes once its bytes are out.
    func responseEnded(_ request: ServerRequest) {
        if !request.keepAlive { closeAfterResponse = true }
        flush()
    }

    /// The response is out: close, or take the next request.
    private func responseSent(_ request: ServerRequest) {
        let sent = request.whenSent
        request.whenSent = nil
        phase = .head
        lastActivity = EventLoop.monotonic()
        headerStartedAt = evbuffer_get_length(input) > 0 ? lastActivity : nil // a pipelined head's clock starts now
        sent?()
        // A body still arriving is not read to its end for nothing: the connection goes with it.
        if closeAfterResponse || upload != nil { return lingerAfterResponse || upload != nil ? linger() : close() }
        pauseReading(false)
        if evbuffer_get_length(input) > 0 { process() }
    }

    /// Hands the socket to a tunnel: no more events here, and the bytes the client sent after
    /// its request head go into `pending`. `release` ends it when the tunnel does.
    func detach(pendingInto pending: OpaquePointer?) -> Int32? {
        // A tunnel reads and writes the socket itself: it can not carry this connection's TLS.
        guard !closed, !detached, queued == 0, tls == nil else { return nil }
        detached = true
        event_del(readEvent)
        event_del(writeEvent)
        event_del(notifyEvent)
        evbuffer_add_buffer(pending, input)
        return fd
    }

    /// The tunnel ended: the socket closes and the connection goes.
    func release() {
        guard detached, !closed else { return }
        closed = true
        Glibc.close(fd)
        phase = .head // the request holds this connection: see `close`
        server.forget(self)
    }

    func pauseReading(_ pause: Bool) {
        guard pause != readPaused, !closed else { return }
        readPaused = pause
        if pause { event_del(readEvent) } else { event_add(readEvent, nil) }
        // Bytes TLS decrypted already do not make the socket readable: read them on the next turn.
        if !pause, let tls, tls.pending > 0 { event_active(readEvent, Int32(eddy_EV_READ), 0) }
    }

    /// Closes the socket; the request being answered learns of it. Unless the server is going
    /// (`notify` false), the connection leaves its list.
    func close(notify: Bool = true) {
        guard !closed else { return }
        closed = true
        event_del(readEvent)
        event_del(writeEvent)
        event_del(notifyEvent)
        if !detached {
            tls?.shutdown()
            Glibc.close(fd)
        }
        feed.removeAll()
        // What is queued goes now (file segments hold descriptors), and the request in flight is
        // let go: it holds this connection, so keeping it would keep both, and their files, forever.
        evbuffer_drain(output, evbuffer_get_length(output))
        evbuffer_drain(input, evbuffer_get_length(input))
        abandonUpload()
        let current: ServerRequest?
        switch phase {
        case let .answering(r), let .body(r, _, _): current = r
        case .head: current = nil
        }
        phase = .head
        current?.connectionClosed()
        if notify { server.forget(self) }
    }
}
