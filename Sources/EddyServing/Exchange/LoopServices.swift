import EddyCore
import EddyHLS
import EddyLoop
import EddyResources
import Logging

/// What every exchange on a loop shares, whether it needs a resource or not: that loop's
/// upstream client (its own curl multi handle) and counters, the shared routes, the client fields
/// sent upstream, and the two things only a home loop may do, handed over as closures: learning a
/// playlist's segments and keys, and invalidating stored responses after an unsafe method (RFC
/// 9111 section 4.4). A pass-through response (`DirectExchange`) and a tunnel need nothing else,
/// so a worker loop runs them whole; a cached response (`CacheExchange`) reaches it through its
/// `ExchangeServices`.
final class LoopServices {
    let loop: EventLoop
    let upstream: UpstreamClient
    /// This loop's counters (summed over the loops at /metrics).
    let metrics: Metrics
    let logger: Logger
    let routing: Routing
    /// Whether X-Forwarded-For and Forwarded are sent upstream (a reload changes it).
    var forwardClientAddress = true
    /// Peers whose incoming X-Forwarded-For and Forwarded are kept (others' are replaced).
    var trustedProxies = Set<String>()
    /// Whether an origin's interim heads (103 Early Hints) reach clients (`early_hints`; a reload changes it).
    var earlyHints = false

    /// Passes an origin's interim head on to `request` when `early_hints` allows (RFC 9110
    /// section 15.2; `ClientRequest.sendInterim` sends none once the final head went out).
    func forwardInterim(_ head: UpstreamHead, to request: any ClientRequest) {
        if earlyHints { request.sendInterim(status: head.status, headers: head.headers) }
    }
    /// Learns what a playlist that passed through says (its segments and keys), at home.
    let learn: (HLSPlaylist, UpstreamURL) -> Void
    /// Invalidates what is stored for a URL and the URI references that name it, at home.
    let invalidate: (UpstreamURL, [String?]) -> Void
    /// Records a finished response (metrics and the access log).
    let finished: (_ request: any ClientRequest, _ outcome: ExchangeOutcome) -> Void

    init(loop: EventLoop, upstream: UpstreamClient, metrics: Metrics, logger: Logger, routing: Routing,
         learn: @escaping (HLSPlaylist, UpstreamURL) -> Void, invalidate: @escaping (UpstreamURL, [String?]) -> Void,
         finished: @escaping (any ClientRequest, ExchangeOutcome) -> Void) {
        self.loop = loop
        self.upstream = upstream
        self.metrics = metrics
        self.logger = logger
        self.routing = routing
        self.learn = learn
        self.invalidate = invalidate
        self.finished = finished
    }

    /// The client's fields to send upstream: end-to-end ones (all for a pass-through; for a
    /// fill, those eddy does not control, see `RequestForwarding`), and the client chain.
    /// `url`: the fill's target, whose `cookies:` rule says which cookies it carries.
    func upstreamFields(for request: any ClientRequest, fill url: UpstreamURL?) -> HTTPHeaders {
        let trusted = trustedProxies.contains(request.peer)
        var h = url.map { RequestForwarding.fill(request.headers, peerTrusted: trusted, cookies: routing.resolver.cookies.policy(for: $0)) }
            ?? RequestForwarding.passThrough(request.headers)
        // The hops before this one: the upstream request's Via lists them before eddy (RFC 9110
        // section 7.6.3), so a parent that is also a child sees the loop (`ViaLoop`).
        if let via = request.headers.combined("Via"), !via.trimmingOWS().isEmpty { h.set("Via", via) }
        guard forwardClientAddress, request.peer != "-" else { return h }
        h.set("X-Forwarded-For", RequestForwarding.xForwardedFor(incoming: request.headers.combined("X-Forwarded-For"),
                                                                  peer: request.peer, peerTrusted: trusted))
        h.set("Forwarded", RequestForwarding.forwarded(incoming: request.headers.combined("Forwarded"), peer: request.peer,
                                                       proto: "http", peerTrusted: trusted))
        return h
    }

    /// A redirect's Location as the client must see it: the target through eddy in the URL form
    /// the client used, so that a redirect does not lead the player around eddy; nil to keep it.
    func clientLocation(_ location: String?, base: UpstreamURL, form: RequestForm) -> String? {
        guard let location, let target = URIReference.resolve(location, against: base) else { return nil }
        return routing.resolver.eddyTarget(for: target, form: form)
    }

    /// A playlist, passed through or stored, rewritten for the client's URL form (see
    /// `Playlists.response`); its segments and keys are learnt at home first.
    func playlistResponse(_ playlist: HLSPlaylist, headers: HTTPHeaders, url: UpstreamURL, form: RequestForm) -> (body: [UInt8], headers: HTTPHeaders) {
        learn(playlist, url)
        return Playlists.response(playlist, headers: headers, url: url, form: form, resolver: routing.resolver)
    }
}
