import CLibevent
import EddyCore
import Glibc

/// Connection bookkeeping that evhttp does not do: a bounded read buffer per connection, a
/// header timeout that trickled bytes do not reset, and shedding idle connections when accept
/// runs out of descriptors.
extension HTTPServer {
    /// evhttp's bufferevent factory: one per accepted connection, before any byte is read.
    func makeBufferevent(base: OpaquePointer?) -> OpaquePointer? {
        // Options as evhttp's own default (0): evhttp closes the descriptor itself.
        guard let bev = bufferevent_socket_new(base, -1, 0) else { return nil }
        // evhttp leaves reading enabled while it writes a response (to notice a close), so a
        // client that pipelines requests and never reads the answers would fill the input
        // buffer without bound (1 GB in 1.8 s, measured). From a request's hand-over until its
        // reply is written, a high watermark suspends reading once a header's worth is queued
        // (`requestStarted`, `responseSent`); evhttp drains it request by request. While a request is read there is
        // none: evhttp hands a request over only once its whole body is buffered (a watermark
        // below the body would stall it), and bounds head and body itself.
        // The callback's argument is the bufferevent itself: the input buffer (and so the
        // callback) lives exactly as long as it does.
        evbuffer_add_cb(bufferevent_get_input(bev), { _, info, arg in
            guard let info, let arg, info.pointee.n_added > 0 else { return }
            let bev = OpaquePointer(arg)
            // evhttp installs its callbacks with its connection as their argument.
            var evcon: UnsafeMutableRawPointer? = nil
            bufferevent_getcb(bev, nil, nil, nil, &evcon)
            guard let evcon, let server = HTTPServer.server(of: OpaquePointer(evcon)) else { return }
            server.bytesArrived(bev, evcon: OpaquePointer(evcon), startsRequest: info.pointee.orig_size == 0)
        }, UnsafeMutableRawPointer(bev))
        return bev
    }

    /// Bytes arrived on a connection: adopt it on the first, and start its header clock when no
    /// request is being answered. `startsRequest`: the input buffer was empty, so unless a body is
    /// being read these bytes begin a request (see `peekRequestLine`).
    func bytesArrived(_ bev: OpaquePointer, evcon: OpaquePointer, startsRequest: Bool) {
        if let c = connections[evcon] {
            if !c.busy && c.headerStartedAt == nil { c.headerStartedAt = EventLoop.monotonic() }
            if startsRequest { peekRequestLine(c) }
            return
        }
        let c = ClientConnection(bev: bev, evcon: evcon, createdAt: EventLoop.monotonic())
        connections[evcon] = c
        peekRequestLine(c)
        budget?.opened()
        evhttp_connection_set_closecb(evcon, { conn, arg in
            guard let conn, let arg else { return }
            Unmanaged<HTTPServer>.fromOpaque(arg).takeUnretainedValue().connectionClosed(conn)
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// evhttp is freeing the connection: forget it before its memory goes.
    func connectionFreed(_ evcon: OpaquePointer) {
        if let c = connections[evcon] { endBodyRead(c) }
        if connections.removeValue(forKey: evcon) != nil { budget?.closed() }
    }

    /// The read watermark that bounds what a connection may queue while a request is answered
    /// (see `makeBufferevent`).
    var readWatermark: Int { limits.maxHeaderBytes + 4096 }

    /// A request was handed to eddy: its header time is over and the connection is busy.
    func requestStarted(_ raw: OpaquePointer) -> ClientConnection? {
        guard let conn = evhttp_request_get_connection(raw), let c = connections[conn] else { return nil }
        // Until its reply is written (`responseSent`), the connection queues a header's worth of
        // the next request at most.
        bufferevent_setwatermark(c.bev, eddy_EV_READ, 0, readWatermark)
        c.busy = true
        c.headerStartedAt = nil
        c.requests += 1
        return c
    }

    /// The response went out (or was abandoned): the connection waits for the next request.
    func requestFinished(_ raw: OpaquePointer) {
        guard let conn = evhttp_request_get_connection(raw), let c = connections[conn] else { return }
        c.busy = false
        // A pipelined request may already be waiting: its header time starts now.
        c.headerStartedAt = evbuffer_get_length(bufferevent_get_input(c.bev)) > 0 ? EventLoop.monotonic() : nil
    }

    /// Asks evhttp to report when the reply of `raw` has been written (see `responseSent`).
    func watchSent(_ raw: OpaquePointer) {
        evhttp_request_set_on_complete_cb(raw, { req, arg in
            guard let req, let arg else { return }
            Unmanaged<HTTPServer>.fromOpaque(arg).takeUnretainedValue().responseSent(req)
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// A reply has left the output buffer: the connection reads its next request with no
    /// watermark, and a `ServerRequest.end(whenSent:)` waiting for this learns of it.
    func responseSent(_ req: OpaquePointer) {
        guard let conn = evhttp_request_get_connection(req) else { return }
        if let c = connections[conn] { bufferevent_setwatermark(c.bev, eddy_EV_READ, 0, 0) }
        if let r = sending.removeValue(forKey: conn) { r.sent() }
    }

    /// Runs every second: closes connections whose request headers have taken longer than the
    /// header timeout (slowloris), and takes the reserve descriptor back when it can.
    func sweepConnections() {
        let now = EventLoop.monotonic()
        let timeout = Double(limits.headerTimeout)
        for c in connections.values where !c.closing {
            expirePendingBody(c, now: now)
            // A response still draining to a slow client is not a slow request: bytes a client
            // sends meanwhile (a pipelined request) wait their turn.
            if let t = c.headerStartedAt, now - t > timeout, c.isIdle {
                headerTimeouts += 1
                c.close()
            }
        }
        if reserveFD < 0 { reserveFD = open("/dev/null", O_RDONLY | O_CLOEXEC) }
    }

    /// accept() failed. Out of descriptors, libevent would retry at once, forever, logging each
    /// time (332 MB of warnings in 20 s, measured). Instead: free the reserve descriptor so the
    /// next accept succeeds, shut the newest idle or header-incomplete connection to make room,
    /// and pause accepting briefly; with nothing to shed, accept and close the newcomer.
    func acceptFailed(errno err: Int32, listener: OpaquePointer) {
        guard err == EMFILE || err == ENFILE || err == ENOBUFS || err == ENOMEM else { return }
        acceptFailures += 1
        let now = EventLoop.monotonic()
        if now - lastAcceptWarning >= 10 {
            lastAcceptWarning = now
            onWarning?("out of descriptors accepting connections (\(String(cString: strerror(err)))); shedding idle connections, \(acceptFailures) failures so far")
        }
        if reserveFD >= 0 {
            Glibc.close(reserveFD)
            reserveFD = -1
        }
        // Descriptors are the process's: with no idle connection here, another loop sheds one.
        if !shedIdleConnection() && budget?.shedElsewhere(than: self) != true {
            let fd = accept(evconnlistener_get_fd(listener), nil, nil)
            if fd >= 0 { Glibc.close(fd) }
        }
        evconnlistener_disable(listener)
        acceptPause.schedule(after: 0.01)
    }

    /// Shuts the newest idle or header-incomplete connection, if there is one.
    func shedIdleConnection() -> Bool {
        guard let victim = connections.values.filter({ !$0.closing && $0.isIdle }).max(by: { $0.createdAt < $1.createdAt }) else {
            return false
        }
        shed += 1
        victim.close()
        return true
    }
}
