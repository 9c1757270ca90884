import EddyTLS

extension ConfigFile {
    /// `tls_certificates: [{cert: FILE, key: FILE}, ...]`.
    static func tlsCertificates(_ value: Any) throws -> [TLSCertificateFiles] {
        guard let list = value as? [[String: Any]] else { throw ConfigError(description: "tls_certificates: expected a list of {cert: FILE, key: FILE}") }
        return try list.map { item in
            guard let cert = item["cert"] as? String, let key = item["key"] as? String, item.count == 2 else {
                throw ConfigError(description: "tls_certificates: each entry is {cert: FILE, key: FILE}")
            }
            return TLSCertificateFiles(cert: cert, key: key)
        }
    }

    /// A certificate needs its key, and a TLS listener a certificate; the files themselves are
    /// loaded (and refused by name) when the listener opens or reloads.
    public static func checkTLS(_ c: ProxyConfig) throws {
        if (c.tlsCert == nil) != (c.tlsKey == nil) {
            throw ConfigError(description: "tls_cert and tls_key go together (--tls-cert and --tls-key)")
        }
        if !c.tlsListens.isEmpty && c.tlsCertificates.isEmpty {
            throw ConfigError(description: "tls_listen needs a certificate: tls_cert and tls_key (--tls-cert, --tls-key), or tls_certificates")
        }
    }
}
