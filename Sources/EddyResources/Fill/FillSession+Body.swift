import EddyCache
import EddyCore
import EddyLoop

/// A fill's body bytes as they arrive: written, checksummed and confirmed block by block as
/// `FillStateMachine` says, or paused, finished or failed.
extension FillSession {
    func received(_ bytes: UnsafeRawBufferPointer) -> UpstreamTransfer.DataDisposition {
        guard state == .streaming, let r = resource else {
            coordinators.logger.debug("fill data in wrong state", metadata: ["state": "\(state)", "resource": "\(resource != nil)"])
            return .abort
        }
        guard r.version == version else { fail("superseded by a newer version", byOrigin: false); return .abort }
        let c = coordinators.of(r)
        stampPlayer()
        if let wait = rateWait() {
            pauseForRate(wait)
            return .pause
        }
        if !keepsSpan, let limit = c.readaheadLimit, cursor >= limit {
            // `readahead` past the furthest byte any response was sent (issue 58): the origin is
            // not asked for what nobody may watch; the fill goes on as the readers move.
            paused = true
            coordinators.metrics.readaheadPauses += 1
            coordinators.pauseFill(self)
            return .pause
        }
        let action = machine.chunkArrived(bytes.count, length: r.meta.length, hasReaders: c.hasTickets,
                                          isPrefetch: keepsSpan, throttled: c.shouldThrottle())
        switch action {
        case .pause:
            // The cache is full of bytes responses still need and nobody waits on this fill:
            // pause (curl keeps these bytes) until readers catch up and blocks can be evicted.
            paused = true
            coordinators.pauseFill(self)
            return .pause
        case .finish:
            finish(r)
            return .abort
        case let .fail(reason):
            fail(reason)
            return .abort
        case let .write(count):
            for l in fetch.limiters { l.take(count) } // only what is written counts against a cap
            coordinators.metrics.bytesFromOrigin += bytes.count
            let chunk = UnsafeRawBufferPointer(rebasing: bytes[..<count])
            guard coordinators.cache.write(r, offset: cursor, bytes: chunk) else {
                fail("cache write failed")
                c.storeFailed()
                return .abort
            }
            checksums.add(chunk, at: cursor)
            let (confirm, done) = machine.written(count, length: r.meta.length)
            if let confirm { coordinators.cache.confirm(r, confirm, checksums: checksums.take(confirm, length: r.meta.length)) }
            c.wake()
            if done {
                finish(r)
                return .abort // quietly stop the transfer: the rest (if any) is not wanted
            }
            return .accept
        }
    }

    /// Fails the fill, confirming what it wrote of this version past the last block boundary (see
    /// `FillStateMachine.breakOff`), so the next fill starts at the byte reached.
    func keepWritten(_ reason: String) {
        guard let r = resource, r.version == version, !r.isRemoved, let keep = machine.breakOff(reason) else {
            machine.fail(reason)
            return
        }
        coordinators.cache.confirm(r, keep, checksums: checksums.take(keep, length: r.meta.length))
        r.unfinishedBlock = checksums.unfinished(version: version)
    }

    /// Seconds a download's fill waits before more bytes (its rate limiters, see
    /// `FetchContext.limiters`); nil to go on now (the bytes written are taken then: a chunk held
    /// back comes again and must not count twice). A fill a player reads is never held back:
    /// the player's wait is the point of the fetch.
    private func rateWait() -> Double? {
        guard !fetch.limiters.isEmpty, wantedPriority != .playback else { return nil }
        let now = EventLoop.monotonic()
        let wait = fetch.limiters.reduce(0.0) { Swift.max($0, $1.wait(now: now)) }
        return wait > 0 ? wait : nil
    }

    /// A fill a player reads tells the downloads to give way (see `PlayerActivity`), at most ten
    /// times a second: who wants the fill is worth asking that often, not per chunk.
    private func stampPlayer() {
        let now = EventLoop.monotonic()
        guard now - playerStamp >= 0.1 else { return }
        playerStamp = now
        if wantedPriority == .playback { coordinators.players.fed(now: now) }
    }

    /// A player began to wait on this fill's resource: a rate pause ends now.
    func playerArrived() {
        guard let timer = rateTimer else { return }
        timer.cancel()
        rateTimer = nil
        resume()
    }

    /// Pauses the transfer (curl keeps the chunk and gives it again) until the limiter's wait is
    /// over: a timer on the loop, never a sleep.
    private func pauseForRate(_ wait: Double) {
        paused = true
        let timer = LoopTimer(loop: coordinators.loop) { [weak self] in self?.resume() }
        rateTimer = timer
        timer.schedule(after: Swift.min(wait, 1))
    }
}
