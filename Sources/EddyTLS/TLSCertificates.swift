import COpenSSL

/// The certificates one TLS listener presents, chosen per connection by the name the client
/// asks for (SNI, RFC 6066 section 3): the first whose names cover it, else the first of all (the
/// default, as nginx's default server is). Immutable; a reload makes a new set
/// (`TLSServerContext.replace`).
public final class TLSCertificates: @unchecked Sendable {
    /// The contexts, the default first.
    public let contexts: [TLSContext]

    /// Loads every pair of `files` (at least one); throws naming the first that fails.
    public init(_ files: [TLSCertificateFiles], alpn: [String]) throws {
        guard !files.isEmpty else { throw TLSError("a TLS listener needs a certificate (tls_cert and tls_key, or tls_certificates)") }
        contexts = try files.map { try TLSContext(files: $0, alpn: alpn) }
        guard contexts.count > 1 else { return }
        // Every connection starts on the default context; its SNI callback moves it. `self` outlives
        // the callback: each connection's channel holds the set it was made from.
        let me = Unmanaged.passUnretained(self).toOpaque()
        _ = eddy_ssl_ctx_set_servername(contexts[0].ctx, { ssl, _, arg in
            guard let ssl, let arg else { return SSL_TLSEXT_ERR_OK }
            Unmanaged<TLSCertificates>.fromOpaque(arg).takeUnretainedValue().chooseContext(for: ssl)
            return SSL_TLSEXT_ERR_OK
        }, me)
    }

    /// Moves `ssl` to the context whose certificate covers the requested name, if another does.
    private func chooseContext(for ssl: OpaquePointer) {
        guard let name = eddy_ssl.get_servername(ssl, TLSEXT_NAMETYPE_host_name) else { return }
        let asked = String(cString: name)
        if let match = contexts.first(where: { $0.covers(asked) }), match !== contexts[0] {
            _ = eddy_ssl.set_ctx(ssl, match.ctx)
        }
    }
}
