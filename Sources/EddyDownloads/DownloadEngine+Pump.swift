import EddyCache
import EddyCore
import EddyHLS
import EddyLoop
import EddyResources

extension DownloadEngine {
    /// Starts fetches until the window is full (`UnitScheduleStateMachine.next`). Units waiting
    /// for their backoff are passed over; when nothing else is in flight, a timer comes back for
    /// the first of them.
    func pump(_ job: DownloadJob) {
        guard job.state == .running, job.plan != nil else { return }
        while true {
            switch job.units.next(now: EventLoop.monotonic(), window: job.window.size) {
            case let .fetch(i):
                // Read each time: a fetch that ends at once may have grown the plan meanwhile.
                guard let plan = job.plan, i < plan.units.count else { return }
                let unit = plan.units[i]
                guard case let .allow(checkAddress) = resolver.gate.check(unit.url) else {
                    // A failure always leaves `running` (waiting for the origin, or failed).
                    return unitFailed(job, i, reason: "refused by the upstream gate", status: nil, ms: 0)
                }
                let f = HomeFetch(homes: homes, url: unit.url, key: cacheKey(of: unit), checkAddress: checkAddress, range: unit.range,
                                  options: HomeFetch.Options(pin: true), limiters: limiters(of: job)) {
                    [weak self, weak job] outcome in
                    guard let self, let job else { return }
                    unitEnded(job, i, outcome)
                }
                job.units.started(i)
                job.fetches[i] = f
                f.start()
            case .busy:
                return
            case .allStored:
                guard !job.isRecording else { return }
                perform(job.machine.allStored(), job)
                changed(job)
                return
            case let .wait(due):
                guard job.pumpTimer == nil else { return }
                let timer = LoopTimer(loop: loop) { [weak self, weak job] in
                    guard let self, let job else { return }
                    job.pumpTimer = nil
                    pump(job)
                }
                job.pumpTimer = timer
                timer.schedule(at: due)
                return
            }
        }
    }

    func unitEnded(_ job: DownloadJob, _ i: Int, _ outcome: HomeFetch.Outcome) {
        guard let f = job.fetches.removeValue(forKey: i), let unit = job.plan?.units[i] else { return }
        job.fetchesEnded += 1
        let ms = Int((EventLoop.monotonic() - f.startedAt) * 1000)
        switch outcome {
        case let .stored(r):
            let retries = job.units.failures[i]
            job.units.stored(i, bytes: unit.range?.count ?? r.length ?? r.bytes)
            job.window.answered(r.status)
            job.record(["event": "request", "kind": unit.kind.rawValue, "uri": unit.name, "status": "\(r.status)",
                        "bytes": "\(job.units.bytes[i])", "ms": "\(ms)", "retries": "\(retries)"])
            perform(job.machine.segmentSucceeded(now: EventLoop.monotonic()), job)
            changed(job)
            pump(job)
        case let .failed(reason, status, retryAfter):
            unitFailed(job, i, reason: reason, status: status, retryAfter: retryAfter, ms: ms)
        }
    }

    func unitFailed(_ job: DownloadJob, _ i: Int, reason: String, status: Int?, retryAfter: Double? = nil, ms: Int) {
        guard let unit = job.plan?.units[i] else { return }
        if dropGoneLiveSegment(job, i, status: status) { return pump(job) }
        job.window.answered(status)
        // The unit waits its own backoff (or the origin's Retry-After); the job waits for the
        // origin (fetches in flight go on) or has failed: nothing to pump now.
        let now = EventLoop.monotonic(), jitter = Double.random(in: 0..<1)
        let failures = job.units.failed(i) { now + job.machine.backoff.delay(failures: $0, retryAfter: retryAfter, jitter: jitter) }
        job.record(["event": "error", "kind": unit.kind.rawValue, "uri": unit.name, "status": status.map(String.init) ?? "-",
                    "ms": "\(ms)", "retries": "\(failures)", "error": reason])
        logger.debug("download unit failed", metadata: ["id": "\(job.id)", "uri": "\(unit.name)", "reason": "\(reason)"])
        perform(job.machine.segmentFailed(unit.name, reason: reason, consecutive: failures, retryAfter: retryAfter,
                                          now: now, jitter: jitter), job)
        if retryAfter != nil { holdFetches(job) }
        changed(job)
    }

    /// The origin asked the job to wait (Retry-After, RFC 9110 section 10.2.3): the fetches in
    /// flight stop too, since each would go on to ask for its next range or block while the
    /// origin said not to. They start again once the hold is over, keeping every block they
    /// confirmed (a player sharing one of their fills keeps it).
    func holdFetches(_ job: DownloadJob) {
        guard let until = job.machine.holdUntil else { return }
        for i in job.units.stopFetches(until: until) { job.fetches.removeValue(forKey: i)?.cancel() }
    }
}
