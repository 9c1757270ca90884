/// What one TLS read or write on a non-blocking socket came to.
public enum TLSOutcome: Equatable, Sendable {
    /// This many plaintext bytes were read or written.
    case bytes(Int)
    /// Nothing until the socket is readable (a record not yet whole, or the handshake's next flight).
    case wantRead
    /// Nothing until the socket is writable (its buffer is full).
    case wantWrite
    /// The peer closed (close_notify, or EOF: `SSL_OP_IGNORE_UNEXPECTED_EOF`).
    case closed
    /// The connection failed (a handshake the client broke, a protocol error); why, for the log.
    case failed(String)
}
