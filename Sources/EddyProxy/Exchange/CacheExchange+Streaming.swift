import EddyCache
import EddyCore
import EddyHLS
import EddyLoop

/// Moving bytes from disk to the client as they become available, and making sure a fill is
/// bringing the ones that are missing.
extension CacheExchange {
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
                resume.progressed()
            }
        }
        complete()
    }

    func advancePiece() {
        pieceIndex += 1
        if pieceIndex < pieces.count, case let .resource(range) = pieces[pieceIndex] { pos = range.lowerBound }
    }

    func send(_ r: CachedResource, offset: Int, count: Int) {
        if chunked {
            // Chunked framing is added by evhttp only to buffers it is given, so no direct sendfile here.
            if let bytes = proxy.store.read(r, offset..<(offset + count)) { bytes.withUnsafeBytes { request.write($0) } }
        } else {
            request.writeFile(proxy.store.span(r, offset..<(offset + count)))
        }
    }

    /// Bytes readable at `offset`: confirmed ones, or ones a fill of this version has written.
    func availableBytes(_ r: CachedResource, at offset: Int) -> Int {
        var n = r.confirmed.contiguousLength(from: offset)
        for f in ResourceFills.of(r).fills where f.version == r.version && f.state == .streaming
            && f.unconfirmedWindow.contains(offset) {
            n = Swift.max(n, f.cursor - offset)
        }
        return n
    }

    /// Registers as a waiter and makes sure a fill is bringing the bytes at `pos`.
    func waitForBytes(_ r: CachedResource, end: Int) {
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
        switch resume.needFill(at: pos, stalledAt: fills.stalledAt) {
        case .keepWaiting:
            return
        case let .giveUp(reason):
            fills.waiters[ObjectIdentifier(self)] = nil
            abort(reason)
            return
        case let .retry(delay):
            let t = LoopTimer(loop: proxy.loop) { [weak self] in
                guard let self else { return }
                self.retryTimer = nil
                self.resume.timerFired()
                self.pump()
            }
            retryTimer = t
            t.schedule(after: delay)
            return
        case let .startFill(isResume):
            if isResume { proxy.metrics.resumes += 1 }
        }
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
    func startRangeFill(_ r: CachedResource, at offset: Int, end: Int) -> FillSession {
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
}
