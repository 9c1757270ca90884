/// One certificate a TLS listener presents: the PEM certificate file (which may hold the chain
/// after the leaf, as nginx's `ssl_certificate` does) and its private key's PEM file.
public struct TLSCertificateFiles: Equatable, Sendable {
    public var cert: String
    public var key: String

    public init(cert: String, key: String) {
        self.cert = cert
        self.key = key
    }
}
