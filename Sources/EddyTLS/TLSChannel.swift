import COpenSSL
import Glibc

/// One client connection's TLS: an `SSL` on its non-blocking socket, in the server role. The
/// connection layer calls `read` and `write` where it called recv and write, and waits for the
/// readiness the outcome names (`wantRead`, `wantWrite`), in either direction: a read may need
/// the socket writable while the handshake's flight goes out.
///
/// Only on the loop thread that owns the connection (OpenSSL's error queue is per thread).
public final class TLSChannel {
    private let ssl: OpaquePointer
    /// The set the connection was accepted with: its SNI callback's argument lives as long.
    public let certificates: TLSCertificates
    /// A write that wanted readiness must be retried with at least as many bytes (SSL_write(3)).
    private var retryLength = 0
    private var shutDown = false

    /// Starts the server side of a handshake on `fd`; nil when OpenSSL can not make the `SSL`.
    public init?(fd: Int32, certificates: TLSCertificates) {
        guard let ssl = eddy_ssl.new_ssl(certificates.contexts[0].ctx) else { return nil }
        guard eddy_ssl.set_fd(ssl, fd) == 1 else {
            eddy_ssl.free_ssl(ssl)
            return nil
        }
        eddy_ssl.set_accept_state(ssl)
        self.ssl = ssl
        self.certificates = certificates
    }

    deinit { eddy_ssl.free_ssl(ssl) }

    /// Reads up to `count` plaintext bytes (driving the handshake first, while it is not done).
    public func read(into buffer: UnsafeMutableRawPointer, count: Int) -> TLSOutcome {
        OpenSSLErrors.clear()
        let n = eddy_ssl.read(ssl, buffer, Int32(clamping: count))
        return n > 0 ? .bytes(Int(n)) : outcome(n)
    }

    /// Writes up to `count` plaintext bytes from `bytes`; with partial writes on, returns once a
    /// record went. After `wantRead`/`wantWrite`, call again with at least as many bytes.
    public func write(_ bytes: UnsafeRawPointer, count: Int) -> TLSOutcome {
        let length = max(min(count, 1 << 16), retryLength)
        OpenSSLErrors.clear()
        let n = eddy_ssl.write(ssl, bytes, Int32(clamping: length))
        if n > 0 {
            retryLength = 0
            return .bytes(Int(n))
        }
        let result = outcome(n)
        if result == .wantRead || result == .wantWrite { retryLength = length }
        return result
    }

    /// Plaintext already decrypted and not yet read: the socket may not wake the loop for it.
    public var pending: Int { Int(eddy_ssl.pending(ssl)) }

    /// The handshake is done.
    public var isEstablished: Bool { eddy_ssl.init_finished(ssl) == 1 }

    /// The protocol ALPN chose (RFC 7301), nil when none was.
    public var alpn: String? {
        var p: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        eddy_ssl.alpn_selected(ssl, &p, &length)
        guard let p, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: p, count: Int(length)), as: UTF8.self)
    }

    /// "TLSv1.3" or "TLSv1.2".
    public var version: String { eddy_ssl.get_version(ssl).map { String(cString: $0) } ?? "" }

    /// The session was resumed (RFC 8446 section 2.2).
    public var resumed: Bool { eddy_ssl.session_reused(ssl) == 1 }

    /// Sends close_notify once (RFC 8446 section 6.1), without waiting for the peer's: the
    /// socket closes next either way.
    public func shutdown() {
        guard !shutDown, isEstablished else { return }
        shutDown = true
        OpenSSLErrors.clear()
        _ = eddy_ssl.shutdown(ssl)
        OpenSSLErrors.clear()
    }

    private func outcome(_ result: Int32) -> TLSOutcome {
        switch eddy_ssl.get_error(ssl, result) {
        case SSL_ERROR_WANT_READ: return .wantRead
        case SSL_ERROR_WANT_WRITE: return .wantWrite
        case SSL_ERROR_ZERO_RETURN: return .closed
        case SSL_ERROR_SYSCALL:
            let e = errno
            if e == EAGAIN || e == EINTR { return .wantRead }
            OpenSSLErrors.clear()
            return e == 0 ? .closed : .failed(String(cString: strerror(e)))
        default:
            shutDown = true // no close_notify after a fatal error (RFC 8446 section 6.2)
            return .failed(OpenSSLErrors.drain())
        }
    }
}
