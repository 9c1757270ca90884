import CLibevent
import EddyTLS
import Glibc

/// A connection on a TLS listener: the same HTTP/1.1 layer, with OpenSSL's reads and writes
/// where recv and writev were, and files read into the output a step at a time (`OutputFeed`)
/// where sendfile was. The handshake runs inside the first reads (`SSL_set_accept_state`).
extension ClientConnection {
    /// Reads one TLS record's worth (up to 16 KiB of plaintext), then goes on as `readable` does.
    func readableTLS(_ tls: TLSChannel) {
        if lingerUntil != nil { return discardWhileLingering() }
        if requests == 0, !tls.isEstablished, refusedPlainHTTP() { return }
        var vec = iovec()
        guard evbuffer_reserve_space(input, 16 << 10, &vec, 1) == 1 else { return close() }
        switch tls.read(into: vec.iov_base!, count: vec.iov_len) {
        case let .bytes(n):
            if lingerUntil == nil {
                vec.iov_len = n
                evbuffer_commit_space(input, &vec, 1)
                lastActivity = EventLoop.monotonic()
                if case .head = phase, headerStartedAt == nil { headerStartedAt = lastActivity }
                process()
            }
            // Plaintext OpenSSL holds already does not wake the loop: come back for it.
            if !closed, !readPaused, tls.pending > 0 { event_active(readEvent, Int32(eddy_EV_READ), 0) }
        case .wantRead:
            return
        case .wantWrite:
            // The handshake's flight did not fit the socket: read again once it is writable.
            readWantsWrite = true
            if !writeArmed {
                writeArmed = true
                event_add(writeEvent, nil)
            }
        case .closed:
            close()
        case .failed:
            // A client that speaks plain HTTP to this port, or breaks the handshake: nothing to answer.
            server.tlsFailures += 1
            close()
        }
    }

    /// Lingering after the last answer: what the client still sends is read raw and dropped (no
    /// record of it matters now), until it closes or the linger ends.
    private func discardWhileLingering() {
        let n = withUnsafeTemporaryAllocation(byteCount: 16 << 10, alignment: 1) { recv(fd, $0.baseAddress, $0.count, 0) }
        if n > 0 || (n < 0 && (errno == EAGAIN || errno == EINTR)) { return }
        close()
    }

    /// A client that sends plain HTTP to the TLS port (its first byte is a letter, where a TLS
    /// handshake starts with record type 22, RFC 8446 section 5.1) is told so in plain HTTP, as
    /// nginx does, rather than reset: `http://` on the TLS port is a common mistake.
    private func refusedPlainHTTP() -> Bool {
        var first: UInt8 = 0
        guard recv(fd, &first, 1, Int32(MSG_PEEK)) == 1, (0x41...0x5a).contains(first) else { return false }
        let body = "400 Bad Request: plain HTTP was sent to eddy's TLS port; use https://\n"
        let reply = "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n"
            + "Content-Length: \(body.utf8.count)\r\n\r\n" + body
        _ = reply.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        server.tlsFailures += 1
        lingerAfterResponse = true
        linger()
        return true
    }

    /// Writes what is queued through TLS, at most `writeTurn` a turn, topping the buffer up from
    /// the feed; false when the connection failed.
    func writeTLS(_ tls: TLSChannel) -> Bool {
        if readWantsWrite {
            readWantsWrite = false
            event_active(readEvent, Int32(eddy_EV_READ), 0)
        }
        var written = 0
        while written < ClientConnection.writeTurn {
            if evbuffer_get_length(output) < ClientConnection.writeStep, !feed.isEmpty {
                guard feed.topUp(output, to: ClientConnection.writeStep) else { return false }
            }
            let length = evbuffer_get_length(output)
            guard length > 0 else { break }
            // One full record rather than a head's record and then the body's: a short first
            // chain is joined with what follows (a copy of at most 16 KiB).
            let record = min(length, 16 << 10)
            if evbuffer_get_contiguous_space(output) < record { evbuffer_pullup(output, record) }
            var vec = iovec()
            guard evbuffer_peek(output, -1, nil, &vec, 1) >= 1, let base = vec.iov_base else { break }
            switch tls.write(base, count: vec.iov_len) {
            case let .bytes(n):
                evbuffer_drain(output, n)
                written += n
                lastActivity = EventLoop.monotonic()
            case .wantWrite, .wantRead:
                return true
            case .closed, .failed:
                return false
            }
        }
        return true
    }
}
