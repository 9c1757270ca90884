import EddyCache
import EddyCore
import EddyHLS
import EddyLoop
import EddyResources

/// Moving bytes from disk to the client as they become available, and making sure a fill is
/// bringing the ones that are missing.
extension CacheExchange {
    // MARK: - streaming

    /// Moves as many available bytes as the connection will take; otherwise waits for a fill or a drain.
    func pump() {
        guard machine.isStreaming, direct == nil else { return }
        if request.isGone { clientGone(); return }
        if machine.state == .streamingPlaylist, let r = resource { servePlaylist(r); return }
        while pieceIndex < pieces.count {
            if request.queuedBytes >= CacheExchange.highWater { return } // onDrained resumes
            switch pieces[pieceIndex] {
            case let .bytes(b):
                b.withUnsafeBytes { request.write($0) }
                advancePiece()
            case let .resource(range):
                guard let r = resource else { abort("resource released"); return }
                if let why = machine.versionCheck(current: r.version) {
                    abort(why)
                    return
                }
                let end = Swift.min(range.upperBound, r.meta.length ?? Int.max)
                if pos >= end {
                    if end == Int.max { waitForBytes(r, end: end); return }
                    advancePiece()
                    continue
                }
                let available = ticket?.available(at: pos) ?? 0
                if available == 0 { waitForBytes(r, end: end); return }
                let n = Swift.min(available, end - pos, CacheExchange.stepBytes)
                // Bytes read back from the index are checked once per run before they are served;
                // a damaged block is dropped, and the loop then finds it missing and fetches it.
                if !r.unverified.isEmpty && !services.cache.verify(r, pos..<(pos + n)) { continue }
                send(r, offset: pos, count: n)
                pos += n
                bytesServed += n
                ticket?.advance(to: pos)
            }
        }
        complete()
    }

    func advancePiece() {
        pieceIndex += 1
        if pieceIndex < pieces.count, case let .resource(range) = pieces[pieceIndex] {
            pos = range.lowerBound
            ticket?.advance(to: pos, end: neededEnd)
        }
    }

    func send(_ r: CachedResource, offset: Int, count: Int) {
        if chunked {
            // Chunked framing is added by evhttp only to buffers it is given, so no direct sendfile here.
            if let bytes = services.cache.read(r, offset..<(offset + count)) { bytes.withUnsafeBytes { request.write($0) } }
        } else {
            request.writeFile(services.cache.span(r, offset..<(offset + count)))
        }
    }

    /// The end of the bytes this response still needs: the end of its last piece.
    var neededEnd: Int {
        var end = pos + 1
        for case let .resource(range) in pieces[pieceIndex...] { end = Swift.max(end, range.upperBound) }
        return end
    }

    /// Nothing is readable at `pos`: the ticket waits for a fill, starts one, or reports failure
    /// (see `ResourceStateMachine.need`); its events call `pump` again.
    func waitForBytes(_ r: CachedResource, end: Int) {
        pieceEnd = end
        ticket?.need()
    }
}
