import EddyCache
import EddyCore
import EddyHLS
import EddyLoop
import EddyResources

extension DownloadEngine {
    /// Starts fetches until the window is full. Units waiting for their backoff are passed over;
    /// when nothing else is in flight, a timer comes back for the first of them.
    func pump(_ job: DownloadJob) {
        guard job.state == .running, let plan = job.plan else { return }
        let units = plan.units
        while job.cursor < units.count && (job.unitDone[job.cursor] || job.inFlight[job.cursor] != nil) { job.cursor += 1 }
        let now = EventLoop.monotonic()
        var due: Double?
        var i = job.cursor
        while job.inFlight.count < job.window.size && i < units.count {
            defer { i += 1 }
            if job.unitDone[i] || job.inFlight[i] != nil { continue }
            if let t = job.unitNotBefore[i], t > now {
                due = min(due ?? t, t)
                continue
            }
            let unit = units[i]
            guard case let .allow(checkAddress) = resolver.gate.check(unit.url) else {
                // A failure always leaves `running` (waiting for the origin, or failed).
                return unitFailed(job, i, reason: "refused by the upstream gate", status: nil, ms: 0)
            }
            let index = i
            let f = HomeFetch(homes: homes, url: unit.url, checkAddress: checkAddress, range: unit.range, options: HomeFetch.Options(pin: true)) {
                [weak self, weak job] outcome in
                guard let self, let job else { return }
                unitEnded(job, index, outcome)
            }
            job.inFlight[i] = f
            f.start()
        }
        guard job.inFlight.isEmpty else { return }
        if job.allStored && !job.isRecording {
            perform(job.machine.allStored(), job)
            changed(job)
        } else if let due, job.pumpTimer == nil {
            let timer = LoopTimer(loop: loop) { [weak self, weak job] in
                guard let self, let job else { return }
                job.pumpTimer = nil
                pump(job)
            }
            job.pumpTimer = timer
            timer.schedule(at: due)
        }
    }

    func unitEnded(_ job: DownloadJob, _ i: Int, _ outcome: HomeFetch.Outcome) {
        guard let f = job.inFlight.removeValue(forKey: i), let unit = job.plan?.units[i] else { return }
        job.fetchesEnded += 1
        let ms = Int((EventLoop.monotonic() - f.startedAt) * 1000)
        switch outcome {
        case let .stored(r):
            job.unitDone[i] = true
            job.unitBytes[i] = unit.range?.count ?? r.length ?? r.bytes
            job.window.answered(r.status)
            job.record(["event": "request", "kind": unit.kind.rawValue, "uri": unit.name, "status": "\(r.status)",
                        "bytes": "\(job.unitBytes[i])", "ms": "\(ms)", "retries": "\(job.unitFailures[i])"])
            job.unitFailures[i] = 0
            job.unitNotBefore[i] = nil
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
        job.unitFailures[i] += 1
        job.window.answered(status)
        job.cursor = min(job.cursor, i)
        job.record(["event": "error", "kind": unit.kind.rawValue, "uri": unit.name, "status": status.map(String.init) ?? "-",
                    "ms": "\(ms)", "retries": "\(job.unitFailures[i])", "error": reason])
        logger.debug("download unit failed", metadata: ["id": "\(job.id)", "uri": "\(unit.name)", "reason": "\(reason)"])
        // The unit waits its own backoff (or the origin's Retry-After); the job waits for the
        // origin (fetches in flight go on) or has failed: nothing to pump now.
        let now = EventLoop.monotonic(), jitter = Double.random(in: 0..<1)
        job.unitNotBefore[i] = now + job.machine.backoff.delay(failures: job.unitFailures[i], retryAfter: retryAfter, jitter: jitter)
        perform(job.machine.segmentFailed(unit.name, reason: reason, consecutive: job.unitFailures[i], retryAfter: retryAfter,
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
        for (i, f) in job.inFlight {
            f.cancel()
            job.unitNotBefore[i] = max(job.unitNotBefore[i] ?? 0, until)
            job.cursor = min(job.cursor, i)
        }
        job.inFlight.removeAll()
    }
}
