import EddyCache
import EddyCore
import EddyLoop

/// How a fill ends early (failed, cancelled), what it records when it ends, and its resumption.
extension FillSession {
    /// The fill's time, start to end, for the fill-duration histogram (fills that began only).
    func recordDuration() {
        if startedAt > 0 { coordinators.metrics.fillDuration.observe(EventLoop.monotonic() - startedAt) }
    }

    /// Ends the fill early. `byOrigin` false when eddy stopped it (cancelled, superseded): the
    /// responses waiting on it do not count that against the origin (see `ResumeStateMachine`).
    func fail(_ reason: String, error: UpstreamError? = nil, byOrigin: Bool = true) {
        guard state.isActive else { return }
        recordDuration()
        // No answer at all (refused, unresolvable, black-holed): the origin is not there.
        if head == nil, let error, error.saysOriginAbsent { coordinators.health?.failed(url, why: error.description) }
        keepWritten(reason)
        transfer?.cancel()
        transfer = nil
        if let r = resource {
            // The origin already had `stall_timeout` to send a byte (each retry would cost another).
            coordinators.of(r).fillFailed(self, stalledAt: error?.isTimeout == true ? cursor : nil,
                                          refusal: OriginRefusal(head, now: coordinators.loop.wallClock()), byOrigin: byOrigin)
        }
        let waiters = takeHeadWaiters()
        if kind == .discovery { coordinators.discoveryFailed(self) }
        for w in waiters { w.headArrived(.failed(reason, timeout: error?.isTimeout ?? false)) }
    }

    func detach(_ r: CachedResource) { coordinators.of(r).fillEnded(self) }

    /// Resumes a paused transfer (outside curl callbacks).
    func resume() {
        guard paused else { return }
        paused = false
        transfer?.resume()
    }

    /// Stops the fill (the resource was dropped).
    package func cancel() { fail("cancelled", byOrigin: false) }
}
