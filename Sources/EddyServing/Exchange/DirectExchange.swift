import EddyCore
import EddyHLS
import EddyLoop
import EddyResources

/// Passes one response through without storing it: for responses a shared cache must not keep
/// (no-store, private, Vary: *, errors, Set-Cookie), requests with credentials, and methods or
/// resources eddy does not cache. Flow control: the upstream transfer pauses while the client's
/// output buffer is above the high-water mark and resumes when it drains.
final class DirectExchange {
    let services: LoopServices
    let request: any ClientRequest
    let url: UpstreamURL
    let checkAddress: Bool
    let form: RequestForm
    let reason: String
    /// A playlist body being collected for rewriting (playlists are small and must be whole).
    private var playlistBody: [UInt8]?
    private var playlistHead: HTTPHeaders?
    private var playlistStatus = 200
    private var transfer: UpstreamTransfer?
    private var paused = false
    private var done = false
    private let startedAt = EventLoop.monotonic()
    /// When the origin's head arrived (for the access log's upstream time).
    private var upstreamHeadAt: Double?
    private var fromOrigin = 0
    private var status = CacheStatus(forward: .bypass)

    private static let highWater = 256 << 10

    init(services: LoopServices, request: any ClientRequest, url: UpstreamURL, form: RequestForm, checkAddress: Bool, reason: String) {
        self.services = services
        self.request = request
        self.url = url
        self.form = form
        self.checkAddress = checkAddress
        self.reason = reason
        status.detail = reason
    }

    /// Starts a new upstream request, or adopts one whose head has arrived already.
    func begin(adopting existing: UpstreamTransfer? = nil, head: UpstreamHead? = nil) {
        request.onClose = { [weak self] in self?.clientGone() }
        request.onDrained = { [weak self] in self?.drained() }
        if let existing, let head {
            transfer = existing
            wire(existing)
            _ = forwardHead(head)
            return
        }
        // Every end-to-end request field travels on (RFC 9110 section 7.6.1), with the client chain.
        let passed = services.upstreamFields(for: request, fill: nil)
        var req = services.upstream.request(url, method: request.method, checkAddress: checkAddress,
                                            userAgent: request.headers["User-Agent"], passing: passed)
        if request.method != "GET" && request.method != "HEAD" {
            if let stream = request.bodyStream {
                req.bodyStream = stream // a large body goes on as it arrives, with back-pressure
            } else {
                let body = request.body()
                if !body.isEmpty || ["POST", "PUT", "PATCH"].contains(request.method) { req.body = body }
            }
        }
        let t = services.upstream.transfer(for: req)
        transfer = t
        wire(t)
        t.onHead = { head in self.forwardHead(head) }
        t.onInterim = { head in if !self.done { self.services.forwardInterim(head, to: self.request) } }
        services.metrics.upstreamFetches += 1
        t.start()
    }

    private func wire(_ t: UpstreamTransfer) {
        // Strong captures: the transfer keeps this exchange alive until it ends (see FillSession).
        t.onData = { bytes in
            guard !self.done, !self.request.isGone else { return .abort }
            if self.playlistBody != nil {
                self.fromOrigin += bytes.count
                self.services.metrics.bytesFromOrigin += bytes.count
                guard self.playlistBody!.count + bytes.count <= Playlists.maxPlaylistBytes else { return .abort }
                self.playlistBody!.append(contentsOf: bytes)
                return .accept
            }
            guard self.request.relay(bytes, highWater: DirectExchange.highWater) else { self.paused = true; return .pause }
            self.fromOrigin += bytes.count
            self.services.metrics.bytesFromOrigin += bytes.count
            return .accept
        }
        t.onComplete = { error in self.completed(error) }
    }

    private func forwardHead(_ head: UpstreamHead) -> Bool {
        upstreamHeadAt = EventLoop.monotonic()
        if (200..<400).contains(head.status) && !["GET", "HEAD", "OPTIONS", "TRACE"].contains(request.method) {
            // RFC 9111 section 4.4: an unsafe method's non-error answer invalidates what is stored
            // for the target, and for Location and Content-Location on the same origin.
            services.invalidate(url, [head.headers["Location"], head.headers["Content-Location"]])
        }
        var h = StoragePolicy.forwarded(head.headers)
        h.set("Via", services.upstream.via(appendingTo: head.headers.combined("Via")))
        var st = status
        st.forwardStatus = head.status
        // A parent's entries first, then this hop's (RFC 9211 section 2).
        h.set("Cache-Status", (head.headers.values("Cache-Status") + [st.description]).joined(separator: ", "))
        status = st
        if (300..<400).contains(head.status), let mapped = services.clientLocation(head.headers["Location"], base: url, form: form) {
            h.set("Location", mapped)
        }
        if head.status == 200, request.method == "GET", Playlists.isManifest(contentType: head.headers["Content-Type"], url: url) {
            playlistBody = []
            playlistHead = h
            return true
        }
        if request.method == "HEAD" || head.status == 204 || head.status == 304 {
            request.send(status: head.status, headers: h)
            finish()
            return false
        }
        request.start(status: head.status, headers: h)
        return true
    }

    private func drained() {
        if paused {
            paused = false
            transfer?.resume()
        }
    }

    private func completed(_ error: UpstreamError?) {
        transfer = nil
        guard !done else { return }
        if error == nil, let body = playlistBody, var h = playlistHead {
            if Playlists.isMPD(contentType: h["Content-Type"], url: url, head: body) {
                // An MPD passed through (no-store): rewritten as a stored one is, or a 502.
                switch Playlists.mpd(body, url: url, form: form, resolver: services.routing.resolver) {
                case let .success((rewritten, _)):
                    request.send(status: 200, headers: Playlists.responseHeaders(h, bodyCount: rewritten.count), body: rewritten)
                case let .failure(e):
                    services.logger.warning("origin sent an MPD eddy does not serve", metadata: ["url": "\(url)", "reason": "\(e)"])
                    request.sendError(502, "the origin's MPD: \(e)")
                }
            } else if let playlist = Playlists.playlist(from: body) {
                let response = services.playlistResponse(playlist, headers: h, url: url, form: form)
                request.send(status: 200, headers: response.headers, body: response.body)
            } else {
                h.set("Content-Length", "\(body.count)") // not text after all: the origin's bytes
                request.send(status: 200, headers: h, body: body)
            }
            finish()
            return
        }
        if let error {
            services.metrics.upstreamFailures += 1
            if request.isGone {
                // The client left first (its transfer was aborted for it): its own choice, not a failure.
                services.logger.info("client left a pass-through response", metadata: ["url": "\(url)"])
            } else if request.headSent {
                services.logger.warning("pass-through cut short", metadata: ["url": "\(url)", "error": "\(error)"])
                request.abort()
            } else if error == .internalAddress {
                request.sendError(403, "target \(url.host) resolves to a loopback, private or link-local address")
            } else {
                request.sendError(error.isTimeout ? 504 : 502, "upstream: \(error)")
            }
        }
        finish()
    }

    private func clientGone() {
        guard !done else { return }
        transfer?.cancel()
        transfer = nil
        request.end()
        finish()
    }

    private func finish() {
        guard !done else { return }
        done = true
        if request.headSent && !request.isFinished { request.end() }
        request.onDrained = nil
        request.onClose = nil
        services.finished(request, ExchangeOutcome(cacheStatus: status, fromCache: 0, fromOrigin: fromOrigin, startedAt: startedAt,
                                                   upstreamHeadAt: upstreamHeadAt))
    }
}
