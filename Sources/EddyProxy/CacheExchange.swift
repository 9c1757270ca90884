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
    private let startedAt = EventLoop.monotonic()
    private(set) var resource: CachedResource?
    private var version = 0
    private var pieces: [ResponsePiece] = []
    private var pieceIndex = 0
    private var pos = 0
    private var cacheStatus = CacheStatus(forward: .miss)
    private var streaming = false
    private var done = false
    /// True once the response is complete or abandoned.
    var isDone: Bool { done }
    private var bytesServed = 0
    private var bytesAtStart = ByteRangeSet()
    private var noProgressFills = 0
    private var lastFillPos = -1
    private var retryTimer: LoopTimer?
    private var countedCoalesce = false
    /// Set once this response has asked the origin about the stored version (see `validateBeforeHead`).
    private var validated = false
    /// Set when the whole body was on disk when the response started.
    private var allFromCache = false
    /// Serving an HLS playlist: the whole body is needed before it can be rewritten and sent.
    private var playlistMode = false
    private var servePlaylistRaw = false
    private var retryDue = false
    private var direct: UpstreamTransfer?
    private var directPaused = false
    private var chunked = false
    private var isHead: Bool { request.method == "HEAD" }

    /// Most bytes handed to the connection per step, and the queue depth at which we wait for a drain.
    private static let stepBytes = 256 << 10
    private static let highWater = 256 << 10
    /// How far ahead of a running fill's cursor a response waits for it rather than starting its own.
    private static let lookahead = 2 * CacheStore.blockSize

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
    private func discoveryAsked() -> RangeResponseCheck.Asked? {
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
    private func firstBlockAsked(_ r: CachedResource) -> RangeResponseCheck.Asked {
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

    // MARK: - head

    private func respond(_ r: CachedResource) {
        let m = r.meta
        version = r.version
        // The stored fields are shared by every hit on this version; `extra` holds this response's own.
        let stored = proxy.responseHeaders(for: r)
        var extra = HTTPHeaders(capacity: 4)
        extra.add("Age", proxy.age(r, now: proxy.loop.wallClock()))
        switch Preconditions.evaluate(headers: request.headers, etag: m.etag, lastModified: m.lastModified) {
        case .notModified:
            finishWhole(status: 304, headers: stored.headers.appending(extra).withoutBodyFields())
            return
        case .preconditionFailed:
            finishWhole(status: 412, headers: stored.headers.appending(extra).withoutBodyFields())
            return
        case .proceed: break
        }
        if !servePlaylistRaw && proxy.isPlaylist(r, url: url) {
            playlistMode = true
            streaming = true
            pump()
            return
        }
        let rangeApplies = Preconditions.rangeApplies(ifRange: request.headers["If-Range"], etag: m.etag, lastModified: m.lastModified)
        let header = rangeApplies ? RangeHeader.parse(request.headers["Range"]) : nil
        guard let length = m.length else {
            // Length unknown until the body ends: stream it whole, chunked (RFC 9110 section 14.2 lets
            // a server ignore Range).
            chunked = true
            pieces = [.resource(0..<Int.max)]
            startStreaming(status: 200, headers: stored, extra: extra)
            return
        }
        var status = 200
        var multipart: HeaderBlock?
        switch RangePlan.make(header, length: length) {
        case .full:
            pieces = [.resource(0..<length)]
            extra.add("Content-Length", String(length)) // never among the stored fields (StoragePolicy)
        case let .single(span):
            status = 206
            pieces = [.resource(span.range)]
            extra.add("Content-Range", ContentRange(span: span, completeLength: length).headerValue)
            extra.add("Content-Length", String(span.count))
        case let .multipart(spans):
            status = 206
            let boundary = "eddy-\(r.id)-\(version)-\(length)"
            let type = m.contentType ?? "application/octet-stream"
            var total = 0
            for (i, s) in spans.enumerated() {
                let part = Array("\(i == 0 ? "" : "\r\n")--\(boundary)\r\nContent-Type: \(type)\r\nContent-Range: bytes \(s.first)-\(s.last)/\(length)\r\n\r\n".utf8)
                pieces.append(.bytes(part))
                pieces.append(.resource(s.range))
                total += part.count + s.count
            }
            let closing = Array("\r\n--\(boundary)--\r\n".utf8)
            pieces.append(.bytes(closing))
            total += closing.count
            var headers = stored.headers.appending(extra)
            headers.set("Content-Type", "multipart/byteranges; boundary=\(boundary)")
            headers.set("Content-Length", "\(total)")
            multipart = HeaderBlock(headers)
            extra = HTTPHeaders()
        case .unsatisfiable:
            var headers = stored.headers.appending(extra).withoutBodyFields()
            headers.set("Content-Range", "bytes */\(length)")
            pieces = []
            cacheStatus.forward = cacheStatus.forward == .uriMiss ? .uriMiss : nil
            finishWhole(status: 416, headers: headers, body: Array("416 Range Not Satisfiable: no requested range starts before byte \(length)\n".utf8))
            return
        }
        if !r.isComplete && m.ifRangeValidator == nil && !reachableWithoutNewFills(r) {
            // Bytes of responses without a validator can not be proven to belong together
            // (RFC 9111 section 3.4), so what is missing is not fetched into this copy: the
            // request goes to the origin whole, uncached.
            pieces = []
            passThrough(transfer: nil, head: nil, refusal: "no validator")
            return
        }
        startStreaming(status: status, headers: multipart ?? stored, extra: extra)
    }

    /// True when every byte the pieces need is confirmed, or will be written by a fill already running.
    private func reachableWithoutNewFills(_ r: CachedResource) -> Bool {
        let fills = ResourceFills.of(r).fills.filter { $0.state.isActive }
        for case let .resource(range) in pieces {
            let end = Swift.min(range.upperBound, r.meta.length ?? Int.max)
            for gap in r.confirmed.gaps(in: range.lowerBound..<end) {
                let covered = fills.contains { f in
                    f.dataStart <= gap.lowerBound && (f.end ?? Int.max) >= gap.upperBound
                }
                if !covered { return false }
            }
        }
        return true
    }

    private func coverage() -> Bool {
        guard let r = resource else { return false }
        for case let .resource(range) in pieces where range.upperBound != Int.max && !r.confirmed.contains(range) { return false }
        return !chunked
    }

    private func startStreaming(status: Int, headers: HeaderBlock, extra: HTTPHeaders) {
        guard let r = resource else { return }
        var extra = extra
        if !r.unverified.isEmpty, pieces.count == 1, case let .resource(range) = pieces[0], range.count <= ServerRequest.copyThreshold {
            // A small body about to go out in one reply: check it first (see CacheStore.verify).
            _ = proxy.store.verify(r, range)
        }
        let covered = coverage()
        if !covered && validateBeforeHead(r) { return } // respond() runs again with the origin's answer
        if covered && cacheStatus.forward != .uriMiss {
            cacheStatus.forward = nil // every byte asked for is on disk: a hit
        } else if cacheStatus.forward == nil || cacheStatus.forward == .stale {
            cacheStatus.forward = cacheStatus.forward ?? .partial
        }
        cacheStatus.stored = cacheStatus.forward != nil
        cacheStatus.ttl = proxy.ttl(r, now: proxy.loop.wallClock())
        extra.add("Cache-Status", cacheStatus.description)
        if covered && !isHead && pieces.count == 1, case let .resource(range) = pieces[0], range.count <= ServerRequest.copyThreshold {
            // A small body wholly on disk goes out in one reply: no streaming state at all, and
            // from memory when the resource is small enough to be held there.
            let fills = ResourceFills.of(r)
            let sent: Bool
            if let bytes = proxy.memory.body(of: r, fills) ?? proxy.memory.admit(r, fills, store: proxy.store) {
                request.sendShared(status: status, headers: headers, extra: extra, bytes: bytes, offset: range.lowerBound, length: range.count)
                proxy.metrics.memoryHits += 1
                sent = true
            } else {
                sent = request.sendFile(status: status, headers: headers, extra: extra, span: proxy.store.span(r, range))
            }
            if sent {
                bytesServed = range.count
                allFromCache = true
                complete()
                return
            }
        }
        bytesAtStart = r.confirmed
        streaming = true
        ResourceFills.of(r).readers[ObjectIdentifier(self)] = self
        if case let .resource(range)? = pieces.first { pos = range.lowerBound }
        request.onClose = { [weak self] in self?.clientGone() }
        request.onDrained = { [weak self] in
            guard let self else { return }
            if self.directPaused {
                self.directPaused = false
                self.direct?.resume()
            } else {
                self.pump()
            }
        }
        if isHead {
            request.send(status: status, headers: headers, extra: extra)
            complete()
            return
        }
        request.start(status: status, headers: headers, extra: extra)
        pump()
    }

    /// A response that needs bytes the cache lacks asks the origin for the first missing block
    /// before it sends its head, and waits for that answer (self-healing, as ATS does on a
    /// validator mismatch). If the origin's representation changed since the stored bytes were
    /// fetched, its answer (200 to If-Range) replaces them, and this response is then wholly of
    /// the new version instead of being cut off mid-body. Skipped when the origin was just asked
    /// (discovery, revalidation) or a fill of this version is already streaming.
    /// Returns true when such a fill was started; `resourceReady` calls `respond` again.
    private func validateBeforeHead(_ r: CachedResource) -> Bool {
        guard !validated, !isHead, cacheStatus.forward == nil || cacheStatus.forward == .partial,
              r.meta.ifRangeValidator != nil, !ResourceFills.of(r).storeBroken else { return false }
        validated = true
        let fills = ResourceFills.of(r)
        if fills.fills.contains(where: { $0.version == r.version && $0.state == .streaming }) { return false }
        var gap: (at: Int, end: Int)?
        for case let .resource(range) in pieces {
            let end = Swift.min(range.upperBound, r.meta.length ?? Int.max)
            if range.lowerBound < end, let g = r.confirmed.gaps(in: range.lowerBound..<end).first { gap = (g.lowerBound, end); break }
        }
        guard let gap else { return false }
        let fill = startRangeFill(r, at: gap.at, end: gap.end)
        fill.headWaiters.append(self)
        pieces = []
        return true
    }

    // MARK: - streaming

    /// The bytes this response still needs, from far enough behind its position to cover what is
    /// queued for sendfile (at most `highWater + stepBytes`), to the end of its last piece.
    var neededRange: Range<Int> {
        var end = pos
        for case let .resource(range) in pieces[pieceIndex...] { end = Swift.max(end, range.upperBound) }
        return Swift.max(0, pos - CacheExchange.highWater - CacheExchange.stepBytes)..<Swift.max(end, pos + 1)
    }

    /// Moves as many available bytes as the connection will take; otherwise waits for a fill or a drain.
    func pump() {
        guard streaming, !done, direct == nil else { return }
        if request.isGone { clientGone(); return }
        if playlistMode, let r = resource { servePlaylist(r); return }
        while pieceIndex < pieces.count {
            if request.queuedBytes >= CacheExchange.highWater { return } // onDrained resumes
            switch pieces[pieceIndex] {
            case let .bytes(b):
                b.withUnsafeBytes { request.write($0) }
                advancePiece()
            case let .resource(range):
                guard let r = resource, r.version == version else {
                    abort("the origin's representation changed during the response")
                    return
                }
                let end = Swift.min(range.upperBound, r.meta.length ?? Int.max)
                if pos >= end {
                    if end == Int.max { waitForBytes(r, end: end); return }
                    advancePiece()
                    continue
                }
                let available = availableBytes(r, at: pos)
                if available == 0 { waitForBytes(r, end: end); return }
                let n = Swift.min(available, end - pos, CacheExchange.stepBytes)
                // Bytes read back from the index are checked once per run before they are served;
                // a damaged block is dropped, and the loop then finds it missing and fetches it.
                if !r.unverified.isEmpty && !proxy.store.verify(r, pos..<(pos + n)) { continue }
                send(r, offset: pos, count: n)
                pos += n
                bytesServed += n
                noProgressFills = 0
            }
        }
        complete()
    }

    private func advancePiece() {
        pieceIndex += 1
        if pieceIndex < pieces.count, case let .resource(range) = pieces[pieceIndex] { pos = range.lowerBound }
    }

    private func send(_ r: CachedResource, offset: Int, count: Int) {
        if chunked {
            // Chunked framing is added by evhttp only to buffers it is given, so no direct sendfile here.
            if let bytes = proxy.store.read(r, offset..<(offset + count)) { bytes.withUnsafeBytes { request.write($0) } }
        } else {
            request.writeFile(proxy.store.span(r, offset..<(offset + count)))
        }
    }

    /// Bytes readable at `offset`: confirmed ones, or ones a fill of this version has written.
    private func availableBytes(_ r: CachedResource, at offset: Int) -> Int {
        var n = r.confirmed.contiguousLength(from: offset)
        for f in ResourceFills.of(r).fills where f.version == r.version && f.state == .streaming
            && f.unconfirmedWindow.contains(offset) {
            n = Swift.max(n, f.cursor - offset)
        }
        return n
    }

    /// Registers as a waiter and makes sure a fill is bringing the bytes at `pos`.
    private func waitForBytes(_ r: CachedResource, end: Int) {
        let fills = ResourceFills.of(r)
        fills.waiters[ObjectIdentifier(self)] = self
        proxy.waiterArrived(r)
        if let f = fills.fills.first(where: { $0.willCover(pos, lookahead: CacheExchange.lookahead) }) {
            if f.owner !== self && !countedCoalesce {
                countedCoalesce = true
                proxy.metrics.coalesced += 1 // reading bytes another request's fetch brings
            }
            return
        }
        if fills.originIgnoresRange && fills.fills.contains(where: { $0.state.isActive }) { return }
        if r.meta.length == nil {
            // Unknown length and no fill running: the body before us was cut off; fetch from here.
            if fills.fills.contains(where: { $0.state.isActive }) { return }
        }
        if fills.storeBroken {
            fills.waiters[ObjectIdentifier(self)] = nil
            streamDirect(r, end: end)
            return
        }
        if lastFillPos == pos, let stalled = fills.stalledAt, stalled <= pos {
            fills.waiters[ObjectIdentifier(self)] = nil
            abort("upstream stalled at byte \(stalled) for the stall timeout")
            return
        }
        if lastFillPos == pos {
            // The fill we relied on failed without bringing a byte: retry at the first missing
            // byte, after a backoff (0.1 s, doubling), at most `maxResumes` times.
            if retryTimer != nil { return }
            if !retryDue {
                noProgressFills += 1
                if noProgressFills >= proxy.maxResumes {
                    fills.waiters[ObjectIdentifier(self)] = nil
                    abort("upstream failed \(noProgressFills) times at byte \(pos)")
                    return
                }
                let t = LoopTimer(loop: proxy.loop) { [weak self] in
                    guard let self else { return }
                    self.retryTimer = nil
                    self.retryDue = true
                    self.pump()
                }
                retryTimer = t
                t.schedule(after: 0.1 * Double(1 << (noProgressFills - 1)))
                return
            }
            retryDue = false
            proxy.metrics.resumes += 1
        } else {
            noProgressFills = 0
        }
        lastFillPos = pos
        guard r.meta.ifRangeValidator != nil else {
            // Without a validator, bytes from two responses can not be proven to belong together.
            fills.waiters[ObjectIdentifier(self)] = nil
            abort("resource has no validator; cannot resume a partial body")
            return
        }
        startRangeFill(r, at: pos, end: end)
    }

    /// Starts a fill from the block holding `offset` up to the next stored byte, the next fill's
    /// start, `end` or the resource's end, whichever comes first.
    @discardableResult
    private func startRangeFill(_ r: CachedResource, at offset: Int, end: Int) -> FillSession {
        let fills = ResourceFills.of(r)
        let blocks = CacheStore.blocks
        let first = blocks.floor(offset)
        var last: Int? = end == Int.max ? nil : blocks.lastByte(ofBlockHolding: end - 1)
        if let next = r.confirmed.nextStored(from: offset) { last = Swift.min(last ?? Int.max, next - 1) }
        for f in fills.fills where f.state.isActive && f.start > offset { last = Swift.min(last ?? Int.max, f.start - 1) }
        if let len = r.meta.length { last = Swift.min(last ?? (len - 1), len - 1) }
        // A running fill heading through our block would fetch the same bytes: stop it at `first`.
        for f in fills.fills where f.state.isActive && f.start < first && (f.end ?? Int.max) > first && f.cursor <= first {
            f.end = first
        }
        let fill = proxy.startFill(key: key, url: url, kind: .range, resource: r, asked: .span(first: first, last: last),
                                   checkAddress: checkAddress, userAgent: request.headers["User-Agent"])
        fill.owner = self
        fills.fills.append(fill)
        fill.begin()
        return fill
    }

    // MARK: - playlists

    /// Sends the playlist rewritten so every URI goes through eddy, once all its bytes are on disk.
    private func servePlaylist(_ r: CachedResource) {
        if r.isComplete, !r.unverified.isEmpty, let len = r.meta.length { _ = proxy.store.verify(r, 0..<len) }
        guard r.isComplete else {
            if cacheStatus.forward == nil { cacheStatus.forward = .partial }
            let first = r.meta.length.flatMap { r.confirmed.gaps(in: 0..<$0).first?.lowerBound }
            pos = first ?? r.confirmed.contiguousLength(from: 0)
            waitForBytes(r, end: r.meta.length ?? Int.max)
            return
        }
        guard let playlist = proxy.readPlaylist(r) else {
            // Too large or not text after all: serve the stored bytes as they are.
            playlistMode = false
            servePlaylistRaw = true
            streaming = false
            respond(r)
            return
        }
        let fills = ResourceFills.of(r)
        fills.hlsKind = playlist.kind
        let body = Array(proxy.rewrite(playlist, url: url, form: form).text.utf8)
        var h = proxy.responseHeaders(for: r).headers
        h.add("Age", proxy.age(r, now: proxy.loop.wallClock()))
        // The body is eddy's transformation of the origin's: the origin's validator does not name it.
        h.remove("ETag")
        h.set("Accept-Ranges", "none")
        h.set("Content-Length", "\(body.count)")
        cacheStatus.stored = cacheStatus.forward != nil
        if case .live = playlist.kind {} else { cacheStatus.ttl = proxy.ttl(r, now: proxy.loop.wallClock()) }
        h.set("Cache-Status", cacheStatus.description)
        bytesServed = r.meta.length ?? 0
        request.send(status: 200, headers: h, body: isHead ? [] : body)
        complete()
    }

    // MARK: - direct tail

    /// Streams the rest of the current piece straight from the origin without storing it: used when
    /// the cache cannot be written (disk full, I/O errors). The origin's 206 is checked against the
    /// range and validator asked for, so the client still never gets bytes of another version.
    private func streamDirect(_ r: CachedResource, end: Int) {
        guard direct == nil, end != Int.max, let validator = r.meta.ifRangeValidator else {
            abort("cache unwritable and the response can not be resumed uncached")
            return
        }
        var req = UpstreamRequest(url: url)
        req.refuseInternalAddresses = checkAddress
        req.headers = proxy.upstreamBaseHeaders(userAgent: request.headers["User-Agent"])
        req.headers.set("Range", "bytes=\(pos)-\(end - 1)")
        req.headers.set("If-Range", validator)
        let t = UpstreamTransfer(multi: proxy.curl, request: req, timeouts: proxy.config.upstreamTimeouts)
        direct = t
        let asked = RangeResponseCheck.Asked.span(first: pos, last: end - 1)
        t.onHead = { head in
            guard head.status == 206, case .success = RangeResponseCheck.verify(
                asked: asked, contentRange: head.headers["Content-Range"], contentLength: head.contentLength,
                knownLength: r.meta.length) else {
                self.direct = nil
                self.abort("uncached resume got \(head.status) instead of the asked range")
                return false
            }
            return true
        }
        t.onData = { bytes in
            guard !self.done, !self.request.isGone else { return .abort }
            guard self.request.relay(bytes, highWater: CacheExchange.highWater) else { self.directPaused = true; return .pause }
            self.proxy.metrics.bytesFromOrigin += bytes.count
            self.pos += bytes.count
            self.bytesServed += bytes.count
            return .accept
        }
        t.onComplete = { error in
            self.direct = nil
            if let error { self.abort("uncached resume failed: \(error)"); return }
            self.pump()
        }
        proxy.metrics.upstreamFetches += 1
        t.start()
    }

    // MARK: - endings

    private func finishWhole(status: Int, headers: HTTPHeaders, body: [UInt8] = []) {
        var h = headers
        if cacheStatus.forward == .stale { cacheStatus.forward = nil }
        h.set("Cache-Status", cacheStatus.description)
        if !body.isEmpty { h.set("Content-Type", "text/plain; charset=utf-8") }
        request.send(status: status, headers: h, body: body)
        complete()
    }

    private func fail(_ status: Int, _ reason: String) {
        var h = HTTPHeaders()
        h.set("Via", proxy.via)
        h.set("Cache-Status", "\(proxy.config.name); fwd=\(cacheStatus.forward?.rawValue ?? "miss"); detail=\"\(reason.replacingAll("\"", "'"))\"")
        request.sendError(status, reason, extra: h)
        complete()
    }

    private func abort(_ reason: String) {
        proxy.logger.warning("response cut short", metadata: ["url": "\(url)", "reason": "\(reason)", "sent": "\(bytesServed)"])
        if request.headSent { request.abort() } else { request.sendError(502, reason) }
        complete()
    }

    private func clientGone() {
        guard !done else { return }
        request.end() // frees the detached request (libevent requires it)
        complete()
    }

    private func complete() {
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

    private func servedFromCache() -> Int {
        var total = 0
        for case let .resource(range) in pieces {
            let end = Swift.min(range.upperBound, range.lowerBound + bytesServed)
            if end > range.lowerBound { total += bytesAtStart.intersection(range.lowerBound..<end).count }
        }
        return Swift.min(total, bytesServed)
    }

    private func releaseResource() {
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
