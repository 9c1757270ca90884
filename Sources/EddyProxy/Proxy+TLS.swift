import EddyLoop
import EddyTLS

/// TLS listeners (`tls_listen`): the same HTTP/1.1 layer and the same exchanges as the plain
/// listener, each loop with its own SO_REUSEPORT listener on every TLS address, all sharing one
/// certificate set that SIGHUP replaces (`reloadTLS`).
extension Proxy {
    /// The protocols the TLS listeners offer by ALPN (RFC 7301), preferred first.
    static let alpn = ["http/1.1"]

    /// Loads the certificates and opens the main loop's TLS listeners; throws naming a file that
    /// does not load or a key that does not match, or an address that can not be bound.
    static func openTLSListeners(_ config: ProxyConfig, loop: EventLoop, sharing: PortSharing) throws -> (TLSServerContext?, [HTTPServer]) {
        guard !config.tlsListens.isEmpty else { return (nil, []) }
        let context = TLSServerContext(try loadCertificates(config))
        let servers = try config.tlsListens.map { address in
            let s = try HTTPServer(loop: loop, host: address.host, port: address.port, limits: config.limits, sharing: sharing)
            s.tls = context
            return s
        }
        return (context, servers)
    }

    /// The certificate set `c` names, loaded and checked now.
    static func loadCertificates(_ c: ProxyConfig) throws -> TLSCertificates {
        do { return try TLSCertificates(c.tlsCertificates, alpn: Proxy.alpn) } catch let e as TLSError {
            throw ConfigFile.ConfigError(description: "TLS: \(e.description)")
        }
    }

    /// What every worker needs to open its share of the TLS listeners: the bound ports, and one
    /// connection budget per address shared with the main loop's listener.
    func tlsSetups() -> [Worker.TLSListener] {
        guard let tlsContext else { return [] }
        return tlsServers.map { s in
            let budget = ConnectionBudget()
            budget.join(s) { [mailbox] job in mailbox.post(job) }
            return Worker.TLSListener(host: config.tlsListens[tlsServers.firstIndex { $0 === s }!].host, port: s.boundPort,
                                      budget: budget, context: tlsContext)
        }
    }

    /// SIGHUP: the certificate files are read again (renewed in place, or others named); new
    /// connections get them, open ones keep theirs. Nil when there are no TLS listeners; throws
    /// (and nothing changes) when a file does not load.
    func reloadTLS(_ new: ProxyConfig) throws -> TLSCertificates? {
        guard tlsContext != nil, !new.tlsCertificates.isEmpty else { return nil }
        return try Proxy.loadCertificates(new)
    }
}
