import EddyCache
import EddyCore
import EddyHLS
import EddyLoop

/// Serves one client request from the cache, fetching missing bytes through shared fill sessions.
///
/// States, in order: *resolving* (looking up, or waiting for a discovery or revalidation head),
/// *streaming* (the head is sent; `pump` moves bytes from disk to the connection as they are
/// confirmed or written by a fill, and waits on an event otherwise), *done*.
final class CacheExchange {
    unowned let proxy: Proxy
    let request: ServerRequest
    let url: UpstreamURL
    let key: String
    let checkAddress: Bool
    /// The URL form the client used; rewritten playlist URIs use the same.
    let form: RequestForm
    let startedAt = EventLoop.monotonic()
    var resource: CachedResource?
    var version = 0
    var pieces: [ResponsePiece] = []
    var pieceIndex = 0
    var pos = 0
    var cacheStatus = CacheStatus(forward: .miss)
    var streaming = false
    var done = false
    /// True once the response is complete or abandoned.
    var isDone: Bool { done }
    var bytesServed = 0
    var bytesAtStart = ByteRangeSet()
    /// Start, retry or give up on fills at this response's position (see `ResumeStateMachine`).
    lazy var resume = ResumeStateMachine(maxAttempts: proxy.maxResumes)
    var retryTimer: LoopTimer?
    var countedCoalesce = false
    /// Set once this response has asked the origin about the stored version (see `validateBeforeHead`).
    var validated = false
    /// Set when the whole body was on disk when the response started.
    var allFromCache = false
    /// Serving an HLS playlist: the whole body is needed before it can be rewritten and sent.
    var playlistMode = false
    var servePlaylistRaw = false
    var direct: UpstreamTransfer?
    var directPaused = false
    var chunked = false
    var isHead: Bool { request.method == "HEAD" }

    /// Most bytes handed to the connection per step, and the queue depth at which we wait for a drain.
    static let stepBytes = 256 << 10
    static let highWater = 256 << 10
    /// How far ahead of a running fill's cursor a response waits for it rather than starting its own.
    static let lookahead = 2 * CacheStore.blockSize

    init(proxy: Proxy, request: ServerRequest, url: UpstreamURL, form: RequestForm, checkAddress: Bool) {
        self.proxy = proxy
        self.request = request
        self.url = url
        self.form = form
        self.key = url.description
        self.checkAddress = checkAddress
    }

    // MARK: - resolving

    func begin() {
        proxy.prefetch(after: key)
        let now = proxy.loop.wallClock()
        if let r = proxy.store.lookup(key, now: now) {
            resource = r
            r.readers += 1
            let fills = ResourceFills.of(r)
            if fills.hlsKind == nil, proxy.isPlaylist(r, url: url), let p = proxy.readPlaylist(r) {
                fills.hlsKind = p.kind // known before the freshness check below needs it
            }
            if let reval = fills.revalidation {
                cacheStatus = CacheStatus(forward: .stale)
                proxy.metrics.coalesced += 1
                countedCoalesce = true
                reval.headWaiters.append(self)
                return
            }
            if !proxy.isFresh(r, now: now) {
                cacheStatus = CacheStatus(forward: .stale)
                proxy.metrics.revalidations += 1
                let reval = proxy.startFill(key: key, url: url, kind: .revalidation, resource: r,
                                            asked: firstBlockAsked(r), checkAddress: checkAddress, userAgent: request.headers["User-Agent"])
                reval.owner = self
                reval.headWaiters.append(self)
                fills.revalidation = reval
                reval.begin()
                return
            }
            cacheStatus = CacheStatus(forward: nil) // a hit, unless bytes turn out to be missing
            resourceReady()
            return
        }
        if let d = proxy.discovering[key] {
            cacheStatus = CacheStatus(forward: .miss)
            proxy.metrics.coalesced += 1
            countedCoalesce = true
            d.headWaiters.append(self)
            return
        }
        cacheStatus = CacheStatus(forward: .uriMiss)
        let fill = proxy.startFill(key: key, url: url, kind: .discovery, resource: nil, asked: discoveryAsked(),
                                   checkAddress: checkAddress, userAgent: request.headers["User-Agent"])
        fill.owner = self
        fill.headWaiters.append(self)
        proxy.discovering[key] = fill
        fill.begin()
    }

    /// The range for a discovery request: the client's first range, widened to whole blocks.
    func discoveryAsked() -> RangeResponseCheck.Asked? {
        let blocks = CacheStore.blocks
        if isHead { return .span(first: 0, last: blocks.lastByte(ofBlockHolding: 0)) }
        // Only the first range shapes the fetch; If-Range is evaluated once the validators are known.
        guard case let .bytes(specs)? = RangeHeader.parse(request.headers["Range"]), specs.count == 1 else { return nil }
        switch specs[0] {
        case let .from(first, last):
            let lo = blocks.floor(first)
            if lo == 0 && last == nil { return nil }
            return .span(first: lo, last: last.map { blocks.lastByte(ofBlockHolding: $0) })
        case let .suffix(n):
            return .suffix(n)
        }
    }

    /// The block a revalidation asks for: where this response will start reading.
    func firstBlockAsked(_ r: CachedResource) -> RangeResponseCheck.Asked {
        let blocks = CacheStore.blocks
        var first = 0
        if case let .bytes(specs)? = RangeHeader.parse(request.headers["Range"]), let len = r.meta.length,
           let span = specs.compactMap({ $0.resolve(length: len) }).first {
            first = blocks.floor(span.first)
        }
        return .span(first: first, last: blocks.lastByte(ofBlockHolding: first))
    }

    /// Called when the resource's metadata is current (fresh, refreshed, or just discovered).
    func resourceReady() {
        guard !done else { return }
        if resource == nil, let r = proxy.store.lookup(key, now: proxy.loop.wallClock()) {
            resource = r
            r.readers += 1
        }
        guard let r = resource else { headFailed(reason: "resource vanished", timeout: false); return }
        respond(r)
    }

    /// Called when the fill this request waited on could not produce a head.
    func headFailed(reason: String, timeout: Bool) {
        guard !done else { return }
        if let r = resource, r.meta.length != nil, !proxy.requiresRevalidation(r), cacheStatus.forward == .stale {
            // RFC 9111 section 4.2.4: a stale response may be served when the origin cannot be reached.
            cacheStatus.detail = "stale: \(reason)"
            respond(r)
            return
        }
        if streaming { abort(reason); return }
        if validated, let r = resource, proxy.store.lookup(key, now: proxy.loop.wallClock()) === r {
            // The fill asked before the head failed (or was cancelled by a version change): go on
            // as any response does, with the stored bytes and the usual resume policy.
            respond(r)
            return
        }
        fail(timeout ? 504 : 502, "upstream: \(reason)")
    }

    /// The discovery head was not storable: serve this request by passing the response through.
    func passThrough(transfer: UpstreamTransfer?, head: UpstreamHead?, refusal: String?) {
        guard !done else { return }
        done = true
        releaseResource()
        proxy.metrics.bypasses += 1
        let direct = DirectExchange(proxy: proxy, request: request, url: url, form: form, checkAddress: checkAddress,
                                    reason: refusal ?? "not storable")
        proxy.adopt(request, by: direct)
        direct.begin(adopting: transfer, head: head)
    }

    // MARK: - endings

    func finishWhole(status: Int, headers: HTTPHeaders, body: [UInt8] = []) {
        var h = headers
        if cacheStatus.forward == .stale { cacheStatus.forward = nil }
        h.set("Cache-Status", cacheStatus.description)
        if !body.isEmpty { h.set("Content-Type", "text/plain; charset=utf-8") }
        request.send(status: status, headers: h, body: body)
        complete()
    }

    func fail(_ status: Int, _ reason: String) {
        var h = HTTPHeaders()
        h.set("Via", proxy.via)
        h.set("Cache-Status", "\(proxy.config.name); fwd=\(cacheStatus.forward?.rawValue ?? "miss"); detail=\"\(reason.replacingAll("\"", "'"))\"")
        request.sendError(status, reason, extra: h)
        complete()
    }

    func abort(_ reason: String) {
        proxy.logger.warning("response cut short", metadata: ["url": "\(url)", "reason": "\(reason)", "sent": "\(bytesServed)"])
        if request.headSent { request.abort() } else { request.sendError(502, reason) }
        complete()
    }

    func clientGone() {
        guard !done else { return }
        request.end() // frees the detached request (libevent requires it)
        complete()
    }

    func complete() {
        guard !done else { return }
        done = true
        direct?.cancel()
        direct = nil
        retryTimer?.cancel()
        retryTimer = nil
        if request.headSent && !request.isFinished { request.end() }
        request.onDrained = nil
        request.onClose = nil
        let fromCache = allFromCache ? bytesServed : bytesAtStart.isEmpty ? 0 : servedFromCache()
        proxy.exchangeFinished(request: request, cacheStatus: cacheStatus, fromCache: fromCache,
                               fromOrigin: Swift.max(0, bytesServed - fromCache), startedAt: startedAt)
        releaseResource()
    }

    func servedFromCache() -> Int {
        var total = 0
        for case let .resource(range) in pieces {
            let end = Swift.min(range.upperBound, range.lowerBound + bytesServed)
            if end > range.lowerBound { total += bytesAtStart.intersection(range.lowerBound..<end).count }
        }
        return Swift.min(total, bytesServed)
    }

    func releaseResource() {
        guard let r = resource else { return }
        resource = nil
        r.readers -= 1
        ResourceFills.of(r).waiters[ObjectIdentifier(self)] = nil
        ResourceFills.of(r).readers[ObjectIdentifier(self)] = nil
    }
}


extension HTTPHeaders {
    /// Drops fields that describe a body, for 304/412/416 answers.
    func withoutBodyFields() -> HTTPHeaders {
        var h = self
        for n in ["Content-Length", "Content-Range", "Content-Encoding"] { h.remove(n) }
        return h
    }
}
