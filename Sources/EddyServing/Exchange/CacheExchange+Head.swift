import EddyCache
import EddyCore
import EddyHLS
import EddyLoop
import EddyResources

/// Planning the response for a stored resource: preconditions, ranges, multipart framing, and
/// whether it can go out whole at once or must stream.
extension CacheExchange {
    // MARK: - head

    func respond(_ r: CachedResource) {
        let m = r.meta
        machine.planned(version: r.version)
        let version = r.version
        // The stored fields are shared by every hit on this version; `extra` holds this response's own.
        let stored = services.responseHeaders(for: coordinator(of: r))
        var extra = HTTPHeaders(capacity: 4)
        extra.add("Age", services.age(r, now: services.loop.wallClock()))
        // A 200 that came with a Content-Range of its own is replayed whole with it: a range cut
        // from it would carry two (RFC 9110 section 14.2 lets a server ignore Range).
        if m.status != 200 || m.headers["Content-Range"] != nil {
            respondWhole(r, stored: stored, extra: extra)
            return
        }
        // Offline, a playlist is this node's own cut (`OfflineMultivariant`, a recording), not the
        // stored representation a client's validators name: it is always sent whole.
        let isPlaylist = !machine.playlistAsBytes && services.playlists.isPlaylist(r, url: url, coordinator: coordinator(of: r))
        let conditions = machine.isOffline && isPlaylist ? HTTPHeaders() : request.headers
        switch Preconditions.evaluate(headers: conditions, etag: m.etag, lastModified: m.lastModified) {
        case .notModified:
            var headers = stored.headers.appending(extra).forNotModified()
            // A playlist's answer is rewritten by eddy and names no ETag (`Playlists.response`);
            // its 304 must not hand the client the origin's.
            if isPlaylist { headers.remove("ETag") }
            finishWhole(status: 304, headers: headers)
            return
        case .preconditionFailed:
            finishWhole(status: 412, headers: stored.headers.appending(extra).withoutBodyFields())
            return
        case .proceed: break
        }
        if isPlaylist {
            machine.awaitingPlaylist()
            pump()
            return
        }
        let rangeApplies = Preconditions.rangeApplies(ifRange: request.headers["If-Range"], etag: m.etag, lastModified: m.lastModified)
        let header = rangeApplies ? RangeHeader.parse(request.headers["Range"]) : nil
        guard let length = m.length else {
            // Length unknown until the body ends: stream it whole, chunked (RFC 9110 section 14.2 lets
            // a server ignore Range).
            chunked = true
            body.plan([.resource(0..<Int.max)])
            startStreaming(status: 200, headers: stored, extra: extra)
            return
        }
        let plan = ResponsePlan.make(RangePlan.make(header, length: length), length: length, contentType: m.contentType,
                                     boundary: "eddy-\(r.id)-\(version)-\(length)")
        if plan.status == 416 {
            var headers = stored.headers.appending(extra).withoutBodyFields()
            for (n, v) in plan.bodyFields { headers.set(n, v) }
            body.plan([])
            machine.rangeNotSatisfiable()
            finishWhole(status: 416, headers: headers, body: Array("416 Range Not Satisfiable: no requested range starts before byte \(length)\n".utf8))
            return
        }
        let status = plan.status
        body.plan(plan.pieces)
        var multipart: HeaderBlock?
        if plan.isMultipart {
            // Its Content-Type replaces the representation's, so the stored fields are copied.
            var headers = stored.headers.appending(extra)
            for (n, v) in plan.bodyFields { headers.set(n, v) }
            multipart = HeaderBlock(headers)
            extra = HTTPHeaders()
        } else {
            for (n, v) in plan.bodyFields { extra.add(n, v) } // never among the stored fields (StoragePolicy)
        }
        startUnlessUnprovable(r, status: status, headers: multipart ?? stored, extra: extra)
    }

    /// A stored response other than a 200 (404, 410, a redirect...) is replayed whole with its
    /// status: preconditions and Range apply to 2xx representations only (RFC 9110 sections
    /// 13.2.1 and 14.2). A redirect's Location is mapped to eddy as on the pass-through path.
    private func respondWhole(_ r: CachedResource, stored: HeaderBlock, extra: HTTPHeaders) {
        var block = stored
        if (300..<400).contains(r.meta.status), let mapped = services.clientLocation(stored.headers["Location"], base: url, form: form) {
            var h = stored.headers
            h.set("Location", mapped)
            block = HeaderBlock(h)
        }
        var extra = extra
        if let length = r.meta.length { extra.add("Content-Length", String(length)) }
        chunked = r.meta.length == nil
        body.plan([.resource(0..<(r.meta.length ?? Int.max))])
        startUnlessUnprovable(r, status: r.meta.status, headers: block, extra: extra)
    }

    /// Streams the planned pieces, unless they need bytes that can not be proven to belong with
    /// the stored ones: those of responses without a validator (RFC 9111 section 3.4). What is
    /// missing is then not fetched into this copy; the request goes to the origin whole, uncached.
    private func startUnlessUnprovable(_ r: CachedResource, status: Int, headers: HeaderBlock, extra: HTTPHeaders) {
        if !r.isComplete && r.meta.ifRangeValidator == nil && !reachableWithoutNewFills(r) {
            body.plan([])
            passThrough(transfer: nil, head: nil, refusal: "no validator")
            return
        }
        startStreaming(status: status, headers: headers, extra: extra)
    }

    /// True when this is a Range request whose first piece starts with confirmed bytes, up to
    /// `gap`: they can go out while the origin is asked. A request for the whole body still
    /// waits for the origin's answer first (self-healing, above): a client of a whole body (wget,
    /// a browser's download) counts a cut as a failed file, where a player asking by range asks
    /// again from where it stopped.
    private func startsWithHeldBytes(_ r: CachedResource, before gap: Int) -> Bool {
        guard request.headers["Range"] != nil, case let .resource(range)? = pieces.first else { return false }
        return gap > range.lowerBound && r.confirmed.contains(range.lowerBound..<gap)
    }

    /// True when every byte the pieces need is confirmed, or will be written by a fill already running.
    func reachableWithoutNewFills(_ r: CachedResource) -> Bool {
        let fills = coordinator(of: r).fills.filter { $0.state.isActive }
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

    /// Whether `r` holds every byte this request asks for: the spans of its Range, or the whole body.
    func holdsAsked(_ r: CachedResource) -> Bool {
        if r.isComplete { return true }
        guard let length = r.meta.length else { return false }
        guard case let .bytes(specs)? = RangeHeader.parse(request.headers["Range"]) else { return r.confirmed.contains(0..<length) }
        let spans = specs.compactMap { $0.resolve(length: length) }
        return !spans.isEmpty && spans.allSatisfy { r.confirmed.contains($0.range) }
    }

    func coverage() -> Bool {
        guard let r = resource else { return false }
        for case let .resource(range) in pieces where range.upperBound != Int.max && !r.confirmed.contains(range) { return false }
        return !chunked
    }

    func startStreaming(status: Int, headers: HeaderBlock, extra: HTTPHeaders) {
        guard let r = resource else { return }
        var extra = extra
        if !r.unverified.isEmpty, pieces.count == 1, case let .resource(range) = pieces[0], range.count <= ServerRequest.copyThreshold {
            // A small body about to go out in one reply: check it first (see CacheStore.verify).
            _ = services.cache.verify(r, range)
        }
        let covered = coverage()
        if !covered && validateBeforeHead(r) { return } // respond() runs again with the origin's answer
        // A discovery cut by `readahead` ran ahead only if the body goes past its bound.
        if let b = discoveryBound, r.meta.length.map({ $0 - 1 > b }) ?? true { markReadahead() }
        machine.headPlanned(covered: covered)
        machine.setTTL(services.ttl(coordinator(of: r), now: services.loop.wallClock()))
        extra.add("Cache-Status", cacheStatus.description)
        if covered && !isHead && pieces.count == 1, case let .resource(range) = pieces[0], range.count <= ServerRequest.copyThreshold {
            // A small body wholly on disk goes out in one reply: no streaming state at all, and
            // from memory when the resource is small enough to be held there.
            let c = coordinator(of: r)
            let sent: Bool
            if let bytes = services.memory.body(of: r, c) ?? services.memory.admit(r, c, store: services.cache) {
                request.sendShared(status: status, headers: headers, extra: extra, bytes: bytes, offset: range.lowerBound, length: range.count)
                services.metrics.memoryHits += 1
                publishHit(r, status: status, headers: headers, bytes: bytes)
                sent = true
            } else {
                sent = request.sendFile(status: status, headers: headers, extra: extra, span: services.cache.span(r, range))
                if sent { publishHit(r, status: status, headers: headers, bytes: nil) }
            }
            if sent {
                body.servedWhole(range.count)
                allFromCache = true
                complete()
                return
            }
        }
        if covered { publishHit(r, status: status, headers: headers, bytes: nil) }
        bytesAtStart = r.confirmed
        machine.headSent()
        let (position, neededEnd) = body.start()
        ticket?.read(from: position, to: neededEnd)
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
    func validateBeforeHead(_ r: CachedResource) -> Bool {
        guard let ticket else { return false }
        let c = ticket.coordinator
        guard machine.shouldValidateBeforeHead(isHead: isHead, hasValidator: r.meta.ifRangeValidator != nil,
                                               storeBroken: c.machine.storeBroken,
                                               fillStreaming: c.fills.contains { $0.version == r.version && $0.state == .streaming })
        else { return false }
        var gap: (at: Int, end: Int)?
        for case let .resource(range) in pieces {
            let end = Swift.min(range.upperBound, r.meta.length ?? Int.max)
            if range.lowerBound < end, let g = r.confirmed.gaps(in: range.lowerBound..<end).first { gap = (g.lowerBound, end); break }
        }
        guard let gap else { return false }
        // A fill of this version already on its way to the gap answers the same question: wait for
        // its head with the others instead of asking the origin again.
        let pending = c.fills.first { $0.version == r.version && $0.state == .awaitingHead
                                      && $0.willCover(gap.at, lookahead: Coordinators.lookahead) }
        if startsWithHeldBytes(r, before: gap.at) {
            // The response begins with bytes the cache holds (issue 58: a viewer back on a flapping
            // link): they go out now, and the fill for the hole after them starts at the same time,
            // so its bytes are arriving when the reader gets there. The head needs only what the
            // cache knows; a new version in the origin's answer ends the response as any version
            // change does (`ExchangeStateMachine`), never mixed.
            // Within `readahead` of where this response starts; past it, the fills follow the reader.
            if pending == nil, case let .resource(range)? = pieces.first {
                let bound = c.readaheadEnd(from: range.lowerBound, to: gap.end)
                if gap.at < bound { c.fetch(at: gap.at, end: bound, for: ticket) }
                if bound < gap.end { markReadahead() }
            }
            return false
        }
        if pending == nil, c.readaheadEnd(from: gap.at, to: gap.end) < gap.end { markReadahead() }
        let fill = pending ?? c.fetch(at: gap.at, end: gap.end, for: ticket)
        fill.addHeadWaiter(self)
        body.plan([])
        return true
    }

    /// The response's fill asks the origin only `readahead` past the reader, not for all the
    /// client asked (issue 58): Cache-Status says `detail=readahead`, the access log
    /// `...+READAHEAD`. Another detail (stale, offline) says more and stays.
    func markReadahead() {
        machine.ranAhead()
    }
}
