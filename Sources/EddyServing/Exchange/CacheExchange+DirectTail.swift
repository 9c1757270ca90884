import EddyCache
import EddyCore
import EddyHLS
import EddyLoop
import EddyResources

/// The uncached tail of a response whose cache can not be written.
extension CacheExchange {
    // MARK: - direct tail

    /// Streams the rest of the current piece straight from the origin without storing it: used when
    /// the cache cannot be written (disk full, I/O errors) or the resource left the cache while
    /// this response read it (a purge, a new version). The origin's 206 is checked against the
    /// range and validator asked for, so the client still never gets bytes of another version.
    ///
    /// A transfer that fails before the piece's end (refused, reset, a 5xx) is tried again from
    /// the byte it reached by the rule a fill follows (`ResumeStateMachine`: after 0.1 s, doubling,
    /// `Coordinators.maxAttempts` times at one byte, never after a stall there), so a flaky origin
    /// costs this response no more than it costs one the cache can hold. Any other answer (a 200
    /// to If-Range: another version, or a captive portal's page) ends the response at once.
    func streamDirect(_ r: CachedResource, end: Int) {
        guard direct == nil, directRetry == nil else { return } // under way, or a retry is due
        guard end != Int.max, r.meta.ifRangeValidator != nil else {
            abort("cache unwritable and the response can not be resumed uncached")
            return
        }
        resumeDirect(r, end: end, stalledAt: nil, afterFailure: false)
    }

    /// Starts the tail's transfer at the response's position, arms its retry, or gives up, as
    /// `directResume` says.
    private func resumeDirect(_ r: CachedResource, end: Int, stalledAt: Int?, afterFailure: Bool) {
        guard !done else { return }
        // The piece's last byte came before the transfer failed: nothing of it is left to ask for.
        if body.position >= end {
            pump()
            return
        }
        switch directResume.needFill(at: body.position, stalledAt: stalledAt, afterFailure: afterFailure) {
        case .startFill: startDirect(r, end: end)
        case .keepWaiting: break
        case let .retry(after: delay):
            let timer = LoopTimer(loop: services.loop) { [weak self] in
                guard let self, !self.done else { return }
                self.directRetry = nil
                self.directResume.timerFired()
                self.resumeDirect(r, end: end, stalledAt: nil, afterFailure: false)
            }
            directRetry = timer
            timer.schedule(after: delay)
        case let .giveUp(reason): abort("uncached resume: \(reason)")
        }
    }

    private func startDirect(_ r: CachedResource, end: Int) {
        guard let validator = r.meta.ifRangeValidator else { return }
        let asked = RangeResponseCheck.Asked.span(first: body.position, last: end - 1)
        let upstream = services.upstream
        let t = upstream.transfer(for: upstream.request(url, checkAddress: checkAddress, userAgent: request.headers["User-Agent"],
                                                        range: asked, condition: .ifRange(validator)))
        direct = t
        // The offset of the transfer's next body byte: a 206 may hold more than was asked, from
        // before the response's position or past the piece's end (RFC 9110 section 15.3.7), and
        // only the bytes in between are the client's.
        var at = 0
        t.onHead = { head in
            if self.upstreamHeadAt == nil { self.upstreamHeadAt = EventLoop.monotonic() }
            // An origin's passing failure: the transfer ends with an error, and is tried again.
            if head.status >= 500 { return false }
            guard head.status == 206, case let .success(verified) = RangeResponseCheck.verify(
                asked: asked, contentRange: head.headers["Content-Range"], contentLength: head.contentLength,
                knownLength: r.meta.length) else {
                self.direct = nil
                self.abort("uncached resume got \(head.status) instead of the asked range")
                return false
            }
            at = verified.span.first
            return true
        }
        t.onData = { bytes in
            guard !self.done, !self.request.isGone else { return .abort }
            let from = Swift.max(at, self.body.position), to = Swift.min(at + bytes.count, end)
            if from < to {
                let piece = UnsafeRawBufferPointer(rebasing: bytes[(from - at)..<(to - at)])
                guard self.request.relay(piece, highWater: CacheExchange.highWater) else { self.directPaused = true; return .pause }
                self.services.metrics.bytesFromOrigin += piece.count
                self.body.sent(piece.count)
            }
            at += bytes.count
            // Past the piece's end nothing more is the client's: the transfer stops there, which
            // is no failure (`onComplete` goes on with the next piece).
            return at >= end ? .abort : .accept
        }
        t.onComplete = { error in
            self.direct = nil
            guard !self.done else { return }
            if self.request.isGone { self.clientGone(); return }
            if let error, self.body.position < end {
                let stalled = error.isTimeout ? self.body.position : nil
                self.services.logger.info("uncached resume failed, trying again", metadata: [
                    "url": "\(self.url)", "at": "\(self.body.position)", "error": "\(error)"])
                self.resumeDirect(r, end: end, stalledAt: stalled, afterFailure: true)
                return
            }
            self.pump()
        }
        services.metrics.upstreamFetches += 1
        t.start()
    }
}
