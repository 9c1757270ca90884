/// What a web page in the user's own browser must not do to the admin listener (issue 34), as a
/// value with no I/O: the listener is on loopback, which every page the browser opens can reach.
///
/// - **DNS rebinding.** A page whose name is rebound to 127.0.0.1 talks to the listener as its own
///   origin, and its requests carry `Host: its-name`. Only loopback names and addresses, IP
///   literals (a literal can not be rebound: a page with that origin was served from that address),
///   the listener's own host and the names in `admin_hosts` are accepted: anything else is 421
///   (RFC 9110 section 15.5.20), as Transmission's host whitelist does (CVE-2018-5702).
/// - **Cross-site requests.** A state-changing request (POST, PUT, PATCH, DELETE) whose `Origin`
///   is not the listener's own origin, or whose `Sec-Fetch-Site` says `cross-site` or `same-site`
///   (another port: the Fetch Metadata draft, section 2.1), is 403; a body must be
///   `application/json`, so that a "simple" `text/plain` request a browser sends without a
///   preflight is 415. The CLI sends no `Origin`; the dashboard is same-origin.
public struct AdminRequestGuard: Sendable {
    /// The listener's address as configured.
    public let listenHost: String
    /// Extra names the listener answers to (`admin_hosts`), lowercased.
    public let names: Set<String>

    public init(listenHost: String, names: [String] = []) {
        self.listenHost = listenHost.lowercased()
        self.names = Set(names.map { $0.lowercased() })
    }

    public enum Verdict: Equatable, Sendable {
        case allow
        case refuse(status: Int, reason: String)
    }

    /// The verdict on a request: its method, `Host`, `Origin`, `Sec-Fetch-Site` and
    /// `Content-Type`, and whether it carries a body.
    public func check(method: String, host: String?, origin: String?, fetchSite: String?, contentType: String?,
                      hasBody: Bool) -> Verdict {
        guard let host = host?.trimmingOWS().lowercased(), !host.isEmpty else {
            // HTTP/1.0 without Host: only a loopback listener can tell it came from this machine.
            return AdminAccess.isLoopback(host: listenHost) ? verdictForWrite(method, host: nil, origin: origin, fetchSite: fetchSite,
                                                                                contentType: contentType, hasBody: hasBody)
                : .refuse(status: 421, reason: "a request without Host is answered only on a loopback admin listener")
        }
        let name = AdminRequestGuard.name(ofHost: host)
        guard accepts(name) else {
            return .refuse(status: 421, reason: "the admin listener does not answer to \(name) (add it to admin_hosts)")
        }
        return verdictForWrite(method, host: host, origin: origin, fetchSite: fetchSite, contentType: contentType, hasBody: hasBody)
    }

    /// True for a name (no port) the listener answers to.
    public func accepts(_ name: String) -> Bool {
        AdminAccess.isLoopback(host: name) || AdminRequestGuard.isIPLiteral(name) || name == listenHost || names.contains(name)
    }

    private func verdictForWrite(_ method: String, host: String?, origin: String?, fetchSite: String?, contentType: String?,
                                 hasBody: Bool) -> Verdict {
        guard ["POST", "PUT", "PATCH", "DELETE"].contains(method.uppercased()) else { return .allow }
        let site = fetchSite?.trimmingOWS().lowercased()
        if site == "cross-site" { return .refuse(status: 403, reason: "a cross-site request may not change anything here") }
        if let origin = origin?.trimmingOWS().lowercased() {
            // The listener's own origin is the one the browser reached it by: its Host (RFC 6454
            // section 4; http, as the listener speaks no TLS).
            guard let host, AdminRequestGuard.withoutDefaultPort(origin) == "http://" + AdminRequestGuard.withoutDefaultPort(host) else {
                return .refuse(status: 403, reason: "a request from another origin (\(origin)) may not change anything here")
            }
        } else if site == "same-site" {
            return .refuse(status: 403, reason: "a request from another site's page may not change anything here")
        }
        if hasBody {
            let type = contentType.map { $0.split(separator: ";").first.map(String.init) ?? $0 }?.trimmingOWS().lowercased()
            guard type == "application/json" else {
                return .refuse(status: 415, reason: "a request body here is application/json")
            }
        }
        return .allow
    }

    /// The name part of a Host value: `[::1]:9090` is `[::1]`, `example:80` is `example`.
    public static func name(ofHost host: String) -> String {
        if host.hasPrefix("[") { return host.firstIndex(of: "]").map { String(host[...$0]) } ?? host }
        return host.split(separator: ":", maxSplits: 1).first.map(String.init) ?? host
    }

    static func withoutDefaultPort(_ host: String) -> String { host.hasSuffix(":80") ? String(host.dropLast(3)) : host }

    /// A dotted IPv4 address or a bracketed IPv6 one.
    static func isIPLiteral(_ name: String) -> Bool {
        if name.hasPrefix("[") && name.hasSuffix("]") { return IPv6Address.parse(String(name.dropFirst().dropLast())) != nil }
        return AddressPolicy.parseIPv4(name) != nil
    }
}
