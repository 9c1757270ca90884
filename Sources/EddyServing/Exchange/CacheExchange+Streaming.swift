import EddyCache
import EddyCore
import EddyHLS
import EddyLoop
import EddyResources

/// Moving bytes from disk to the client as they become available, and making sure a fill is
/// bringing the ones that are missing.
extension CacheExchange {
    // MARK: - streaming

    /// Moves as many available bytes as the connection will take; otherwise waits for a fill or a
    /// drain. The steps are `ResponseBodyStateMachine`'s; this performs them.
    func pump() {
        guard machine.isStreaming, direct == nil, directRetry == nil else { return }
        if request.isGone { clientGone(); return }
        if machine.state == .streamingPlaylist, let r = resource { servePlaylist(r); return }
        while true {
            // A write can find the connection gone (a reset seen by the write itself), which ends
            // this response inside the loop: it must not go on as if a resource had been lost
            // (that logged a warning for every viewer who simply left, issue 58).
            guard machine.isStreaming else { return }
            let r = resource
            let queued = request.queuedBytes
            // With the queue full the response first waits for its drain: the bytes queued still
            // go out before a changed version or a released resource cuts it off.
            if body.isOnResource && queued < CacheExchange.highWater {
                guard let r else { abort("resource released"); return }
                if let why = machine.versionCheck(current: r.version) {
                    abort(why)
                    return
                }
            }
            switch body.next(queued: queued, length: r?.meta.length, available: { self.ticket?.available(at: $0) ?? 0 }) {
            case let .write(bytes): bytes.withUnsafeBytes { request.write($0) }
            case let .seek(position, neededEnd): ticket?.advance(to: position, end: neededEnd)
            case let .send(offset, count):
                guard let r else { abort("resource released"); return }
                // Bytes read back from the index are checked once per run before they are served;
                // a damaged block is dropped, and the next step finds it missing and fetches it.
                if !r.unverified.isEmpty && !services.cache.verify(r, offset..<(offset + count)) { continue }
                send(r, offset: offset, count: count)
                body.sent(count)
                ticket?.advance(to: offset + count)
            case .waitForDrain: return // onDrained resumes
            case .waitForBytes:
                // The ticket waits for a fill, starts one, or reports failure (see
                // `ResourceStateMachine.need`); its events call `pump` again.
                ticket?.need()
                return
            case .complete:
                complete()
                return
            }
        }
    }

    func send(_ r: CachedResource, offset: Int, count: Int) {
        if chunked {
            // A body of unknown length is short-lived (the fill is still writing it): copied, as when
            // evhttp framed chunks only around buffers it was given.
            if let bytes = services.cache.read(r, offset..<(offset + count)) { bytes.withUnsafeBytes { request.write($0) } }
        } else {
            request.writeFile(services.cache.span(r, offset..<(offset + count)))
        }
    }
}
