import COpenSSL
import Glibc

/// One `SSL_CTX`: a certificate chain and its key, with eddy's TLS policy. Made on the main
/// thread, then shared read-only by every loop's connections (OpenSSL's contexts are thread-safe
/// once set up); each connection's `SSL` holds a reference to its context, so a reload that
/// drops this one leaves open connections as they are.
///
/// The policy is Mozilla's "intermediate" profile, as nginx's and HAProxy's guides give it:
/// TLS 1.2 and 1.3 only (RFC 8996 deprecates 1.0 and 1.1), forward-secret AEAD suites only for
/// 1.2, OpenSSL's defaults for 1.3 (all AEAD); no compression (CRIME), no renegotiation;
/// resumption by session cache (1.2) and tickets (1.3, RFC 8446 section 4.6.1).
public final class TLSContext: @unchecked Sendable {
    /// The TLS 1.2 suites: ECDHE key exchange and AEAD ciphers only.
    static let cipherList = "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:"
        + "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305"
    let ctx: OpaquePointer
    /// The files it was made from.
    public let files: TLSCertificateFiles
    /// The ALPN protocols offered, in wire format (RFC 7301 section 3.1), owned for the callback.
    private let alpnWire: UnsafeMutableBufferPointer<UInt8>

    /// Loads `files` and checks the key against the certificate; throws naming the file that
    /// failed and OpenSSL's reason. `alpn`: the protocols this listener speaks, preferred first.
    public init(files: TLSCertificateFiles, alpn: [String]) throws {
        if let why = eddy_ssl_open() { throw TLSError("TLS needs libssl3: \(String(cString: why))") }
        OpenSSLErrors.clear()
        guard let ctx = eddy_ssl.ctx_new(eddy_ssl.server_method()) else {
            throw TLSError("cannot make a TLS context: \(OpenSSLErrors.drain())")
        }
        self.ctx = ctx
        self.files = files
        let wire = alpn.flatMap { [UInt8($0.utf8.count)] + Array($0.utf8) }
        alpnWire = .allocate(capacity: max(1, wire.count))
        _ = alpnWire.initialize(from: wire)
        alpnLength = UInt32(wire.count)
        _ = eddy_ssl_ctx_set_versions(ctx, TLS1_2_VERSION, TLS1_3_VERSION)
        let options = eddy_SSL_OP_NO_COMPRESSION | eddy_SSL_OP_NO_RENEGOTIATION | eddy_SSL_OP_CIPHER_SERVER_PREFERENCE
            | eddy_SSL_OP_IGNORE_UNEXPECTED_EOF // a peer that closes without close_notify is an EOF, not an error
        _ = eddy_ssl.ctx_set_options(ctx, options)
        // Partial writes: SSL_write returns after each record, as write(2) does; the buffer may move
        // between retries (it is an evbuffer's first chain); idle connections give their buffers back.
        _ = eddy_ssl_ctx_set_mode(ctx, Int(SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_RELEASE_BUFFERS))
        _ = eddy_ssl_ctx_set_session_cache(ctx, Int(SSL_SESS_CACHE_SERVER), 20_000)
        let sid = Array("eddy".utf8)
        _ = eddy_ssl.ctx_set_session_id_context(ctx, sid, UInt32(sid.count))
        guard eddy_ssl.ctx_set_cipher_list(ctx, TLSContext.cipherList) == 1 else {
            throw TLSError("cannot set the TLS 1.2 ciphers: \(OpenSSLErrors.drain())")
        }
        guard eddy_ssl.ctx_use_chain_file(ctx, files.cert) == 1 else {
            throw TLSError("cannot load the certificate \(files.cert): \(OpenSSLErrors.drain())")
        }
        guard eddy_ssl.ctx_use_key_file(ctx, files.key, SSL_FILETYPE_PEM) == 1 else {
            let why = OpenSSLErrors.drain()
            // OpenSSL checks the pair as it loads the key ("key values mismatch"): say which files.
            if why.contains("mismatch") {
                throw TLSError("the key \(files.key) does not match the certificate \(files.cert): \(why)")
            }
            throw TLSError("cannot load the key \(files.key): \(why)")
        }
        guard eddy_ssl.ctx_check_key(ctx) == 1 else {
            throw TLSError("the key \(files.key) does not match the certificate \(files.cert): \(OpenSSLErrors.drain())")
        }
        let me = Unmanaged.passUnretained(self).toOpaque()
        eddy_ssl.ctx_set_alpn_select_cb(ctx, { _, out, outLength, offered, offeredLength, arg in
            let context = Unmanaged<TLSContext>.fromOpaque(arg!).takeUnretainedValue()
            return context.selectALPN(out, outLength, offered, offeredLength)
        }, me)
    }

    private let alpnLength: UInt32

    deinit {
        eddy_ssl.ctx_free(ctx)
        alpnWire.deallocate()
    }

    /// RFC 7301 section 3.2: the server's preference among the client's offer. A client offering
    /// none of eddy's gets no ALPN answer (NOACK) and speaks HTTP/1.1 as it would without ALPN.
    private func selectALPN(_ out: UnsafeMutablePointer<UnsafePointer<UInt8>?>?, _ outLength: UnsafeMutablePointer<UInt8>?,
                            _ offered: UnsafePointer<UInt8>?, _ offeredLength: UInt32) -> Int32 {
        var chosen: UnsafeMutablePointer<UInt8>?
        var length: UInt8 = 0
        let r = eddy_ssl.select_next_proto(&chosen, &length, alpnWire.baseAddress, alpnLength, offered, offeredLength)
        guard r == OPENSSL_NPN_NEGOTIATED, let chosen else { return SSL_TLSEXT_ERR_NOACK }
        out?.pointee = UnsafePointer(chosen)
        outLength?.pointee = length
        return SSL_TLSEXT_ERR_OK
    }

    /// The certificate's names cover `serverName` (its subjectAltName DNS names, wildcards as
    /// RFC 6125 section 6.4.3 allows them; OpenSSL's own matcher).
    func covers(_ serverName: String) -> Bool {
        guard let cert = eddy_ssl.ctx_certificate(ctx) else { return false }
        return serverName.withCString { eddy_ssl.check_host(cert, $0, strlen($0), 0, nil) } == 1
    }
}
