import EddyCore

/// What a TLS listener's loops share: the certificate set new connections get. A reload
/// (SIGHUP) replaces it; connections already open keep the set they were made with.
public final class TLSServerContext: Sendable {
    private let current: Locked<TLSCertificates>

    public init(_ certificates: TLSCertificates) { current = Locked(certificates) }

    /// The set for a connection accepted now.
    public var certificates: TLSCertificates { current.withLock { $0 } }

    /// New connections get `certificates` from now on.
    public func replace(with certificates: TLSCertificates) { current.withLock { $0 = certificates } }
}
