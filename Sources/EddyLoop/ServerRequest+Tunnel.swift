import CLibevent
import Glibc

/// Taking a client connection out of evhttp for a CONNECT tunnel (RFC 9110 section 9.3.6).
///
/// evhttp has no hand-over: freeing its connection shuts the socket down (SHUT_WR), so it must
/// outlive the tunnel. The tunnel therefore reads and writes the same descriptor through a
/// bufferevent of its own while evhttp's is disabled (no events registered, so nothing stale is
/// left when either side goes), and evhttp's connection is freed only when the tunnel ends.
extension ServerRequest {
    /// Makes `onClose` fire when the connection closes before any reply has started (while a
    /// tunnel's upstream connection is being made, and for the tunnel's whole life).
    public func watchClose() {
        guard !isFinished, let conn = evhttp_request_get_connection(raw) else { return }
        server.activeRequests[conn] = self
    }

    /// Undoes `watchClose()` before answering normally.
    public func unwatchClose() {
        guard let conn = evhttp_request_get_connection(raw), server.activeRequests[conn] === self else { return }
        server.activeRequests[conn] = nil
    }

    /// Stops evhttp from using the connection and returns its descriptor, with the bytes the
    /// client sent after its request head (moved out of evhttp's buffer into `pending`). The
    /// request counts as answered with 200; call `releaseConnection()` when the tunnel ends.
    func detachConnection(pendingInto pending: OpaquePointer?) -> Int32? {
        guard !isFinished, !isGone, let conn = evhttp_request_get_connection(raw),
              let bev = evhttp_connection_get_bufferevent(conn) else { return nil }
        let fd = bufferevent_getfd(bev)
        guard fd >= 0 else { return nil }
        bufferevent_disable(bev, eddy_EV_READ | eddy_EV_WRITE)
        evbuffer_add_buffer(pending, bufferevent_get_input(bev))
        status = 200
        headSent = true
        isFinished = true
        onDrained = nil
        server.activeRequests[conn] = self
        return fd
    }

    /// Frees evhttp's connection after a tunnel: shuts the socket down and closes it. Nothing of
    /// the request may be used afterwards (evhttp frees it with its connection).
    func releaseConnection() {
        guard !isGone else { return }
        isGone = true
        onClose = nil
        guard let conn = evhttp_request_get_connection(raw) else { return }
        if server.activeRequests[conn] === self { server.activeRequests[conn] = nil }
        evhttp_connection_free(conn)
    }
}
