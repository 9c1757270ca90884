import EddyCore

/// eddy's own listen address: where the admin API is given a URL (a download's, a resource's), one
/// naming this listener is an eddy URL, resolved like a request-target; any other is an origin's.
package struct SelfAuthority {
    package let host: String
    package let port: Int

    package init(host: String, port: Int) {
        (self.host, self.port) = (host, port)
    }

    /// The listener's base URL as a client reaches it: its own address, or for a wildcard listen
    /// address the name the client used (`reachedAs`, a Host's name part), else loopback; an IPv6
    /// literal in brackets (RFC 3986 section 3.2.2).
    package func baseURL(reachedAs name: String? = nil) -> String {
        var h = ["0.0.0.0", "::", ""].contains(host) ? name ?? "127.0.0.1" : host
        if h.contains(":") && !h.hasPrefix("[") { h = "[\(h)]" }
        return "http://\(h):\(port)"
    }

    /// True when `u` names this listener (`localhost` too when it listens on 127.0.0.1).
    package func names(_ u: UpstreamURL) -> Bool {
        u.port == port && (u.host == host || (u.host == "localhost" && host == "127.0.0.1"))
    }
}
