import CLibevent
import Glibc

extension ClientConnection {
    /// Longest a closing connection discards what its client still sends (`linger`).
    static let lingerSeconds = 3.0

    /// Closes for writing, then reads and discards what the client still sends, until it closes
    /// or `lingerSeconds` pass (the sweep ends it). Closing at once with unread bytes in the
    /// socket would send a reset, and the client's stack would then drop the answer it had not
    /// read yet: an upload refused on its head would never see its 401 or 413 (RFC 9112
    /// section 9.6, nginx's lingering_close). Nothing is kept, so it costs no memory.
    func linger() {
        guard !closed, !detached else { return close() }
        abandonUpload()
        lingerUntil = EventLoop.monotonic() + ClientConnection.lingerSeconds
        headerStartedAt = nil
        evbuffer_drain(input, evbuffer_get_length(input))
        shutdown(fd, Int32(SHUT_WR))
        pauseReading(false)
    }
}
