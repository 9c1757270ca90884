import EddyCore
import EddyHLS
import EddyLoop
import EddyResources

/// Where a client request is answered, decided from the request alone (and the routes), so that
/// any loop can decide it: refused at once, passed through uncached on the loop that took it,
/// or answered by an exchange on the home loop of its resource.
enum RequestPlan {
    /// Refused with `status` (a method eddy does not pass on, a target it does not route).
    case refuse(status: Int, reason: String, forward: CacheStatus.Forward, allow: Bool)
    /// Passed through uncached (`DirectExchange`): needs no resource, so any loop runs it.
    case passThrough(url: UpstreamURL, form: RequestForm, checkAddress: Bool, reason: String)
    /// Needs the cache: an exchange on the home loop (`Home.answer`, which may still pass it
    /// through).
    case home(url: UpstreamURL, form: RequestForm, checkAddress: Bool)

    /// The plan for a request (not CONNECT, which the connection's own loop handles).
    /// `loopName`: this node's pseudonym, when requests naming it in Via are loops (see `ViaLoop`).
    static func make(method: String, uri: String, headers: HTTPHeaders, resolver: TargetResolver, cacheAvailable: Bool,
                     loopName: String? = nil, child: Bool = false) -> RequestPlan {
        if let refusal = methodRefusal(method) {
            return .refuse(status: refusal.status, reason: refusal.reason, forward: .method, allow: true)
        }
        if let loopName, ViaLoop.names(headers.values("Via"), loopName) {
            return .refuse(status: 508, reason: "loop detected: this request already passed through \(loopName) (Via); check the parents of the cluster",
                           forward: .request, allow: false)
        }
        switch resolver.resolve(uri, child: child) {
        case let .refused(status, reason):
            return .refuse(status: status, reason: reason, forward: .request, allow: false)
        case let .upstream(url, form, checkAddress):
            guard method == "GET" || method == "HEAD" else {
                return .passThrough(url: url, form: form, checkAddress: checkAddress, reason: "method")
            }
            // RFC 9111 section 3.5: responses to authenticated requests are not shared by default.
            if headers["Authorization"] != nil {
                return .passThrough(url: url, form: form, checkAddress: checkAddress, reason: "authorization")
            }
            // `cookies: bypass` (Varnish's builtin policy): a request with cookies is not shared.
            if headers["Cookie"] != nil, resolver.cookies.anyBypass, resolver.cookies.policy(for: url) == .bypass {
                return .passThrough(url: url, form: form, checkAddress: checkAddress, reason: "cookie")
            }
            if !cacheAvailable { return .passThrough(url: url, form: form, checkAddress: checkAddress, reason: "cache unavailable") }
            // LL-HLS blocking reloads and delta updates: one resource per playlist and directives
            // in canonical order, so that the viewers waiting for the same part share one held
            // request to the origin (a miss's single flight), and late joiners its answer while
            // it is current (the live-playlist rule).
            if HLSPlaylist.hasDeliveryDirectives(url.pathAndQuery) {
                return .home(url: url.replacing(pathAndQuery: DeliveryDirectives.canonical(url.pathAndQuery)), form: form,
                             checkAddress: checkAddress)
            }
            return .home(url: url, form: form, checkAddress: checkAddress)
        }
    }

    /// Methods eddy does not pass on: TRACE (a proxy that reflects requests
    /// would echo credentials to scripts), and any eddy could not name (`acceptExtension`
    /// answers those before they get here).
    static func methodRefusal(_ method: String) -> (status: Int, reason: String)? {
        switch method {
        case "TRACE": return (405, "TRACE is not supported")
        case "UNKNOWN": return (501, "unknown method")
        default: return nil
        }
    }

    /// Sends the refusal, and returns what to record of it.
    static func refuse(_ request: any ClientRequest, status: Int, reason: String, forward: CacheStatus.Forward, allow: Bool) -> ExchangeOutcome {
        request.sendError(status, reason, extra: allow ? ExchangeServices.allowHeader : HTTPHeaders())
        return ExchangeOutcome(cacheStatus: CacheStatus(forward: forward), fromCache: 0, fromOrigin: 0, startedAt: EventLoop.monotonic())
    }
}
