import CLibevent
import Glibc

/// Taking a client connection over for a CONNECT tunnel (RFC 9110 section 9.3.6): the
/// connection's events stop, and the tunnel reads and writes its socket with bufferevents of its
/// own until it ends and releases it.
extension ServerRequest {
    /// Kept for the tunnel's callers: a connection that closes reaches `onClose` whatever the
    /// state of the reply.
    public func watchClose() {}

    /// Undoes `watchClose()` before answering normally.
    public func unwatchClose() {}

    /// Stops the connection's own use of its socket and returns it, with the bytes the client
    /// sent after its request head (moved into `pending`). The request counts as answered with
    /// 200; call `releaseConnection()` when the tunnel ends.
    func detachConnection(pendingInto pending: OpaquePointer?) -> Int32? {
        guard !isFinished, !isGone, !headSent, let fd = connection.detach(pendingInto: pending) else { return nil }
        status = 200
        headSent = true
        isFinished = true
        onDrained = nil
        return fd
    }

    /// Closes the socket after a tunnel.
    func releaseConnection() {
        guard !isGone else { return }
        isGone = true
        onClose = nil
        connection.release()
    }
}
