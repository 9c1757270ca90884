import EddyCache
import EddyCore
import EddyHLS
import EddyLoop

/// The uncached tail of a response whose cache can not be written.
extension CacheExchange {
    // MARK: - direct tail

    /// Streams the rest of the current piece straight from the origin without storing it: used when
    /// the cache cannot be written (disk full, I/O errors). The origin's 206 is checked against the
    /// range and validator asked for, so the client still never gets bytes of another version.
    func streamDirect(_ r: CachedResource, end: Int) {
        guard direct == nil, end != Int.max, let validator = r.meta.ifRangeValidator else {
            abort("cache unwritable and the response can not be resumed uncached")
            return
        }
        let asked = RangeResponseCheck.Asked.span(first: body.position, last: end - 1)
        let upstream = services.upstream
        let t = upstream.transfer(for: upstream.request(url, checkAddress: checkAddress, userAgent: request.headers["User-Agent"],
                                                        range: asked, condition: .ifRange(validator)))
        direct = t
        t.onHead = { head in
            if self.upstreamHeadAt == nil { self.upstreamHeadAt = EventLoop.monotonic() }
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
            self.services.metrics.bytesFromOrigin += bytes.count
            self.body.sent(bytes.count)
            return .accept
        }
        t.onComplete = { error in
            self.direct = nil
            if let error { self.abort("uncached resume failed: \(error)"); return }
            self.pump()
        }
        services.metrics.upstreamFetches += 1
        t.start()
    }
}
