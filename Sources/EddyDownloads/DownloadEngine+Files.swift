import EddyCache
import EddyCore
import EddyDASH
import EddyLoop
import EddyResources

/// File downloads (`DownloadKind.file`): any URL that is not an HLS playlist, brought into the
/// cache whole as parallel block-aligned ranges through the resource's coordinator (players
/// share its fills, as they share an HLS download's segments), pinned, only the holes fetched.
extension DownloadEngine {
    /// HLS, DASH or file. A URL whose path names a playlist or an MPD is read as one; any other is
    /// probed: its first block is fetched into the cache (where the download will use it) and
    /// sniffed (`DownloadKind.sniff`). Then its format checks the spec against it.
    func classify(_ spec: DownloadSpec, url: UpstreamURL, checkAddress: Bool,
                  done: @escaping (Result<DownloadKind, DownloadInputError>) -> Void) {
        let check: (DownloadKind) -> Void = { [weak self] kind in
            self?.format(of: kind).check(spec, url: url, checkAddress: checkAddress) { error in
                if let error { done(.failure(error)) } else { done(.success(kind)) }
            }
        }
        if DownloadKind.namesPlaylist(url.pathAndQuery) { return check(.hls) }
        if MPDSniffer.isMPDPath(url.pathAndQuery) { return check(.dash) }
        HomeFetch(homes: homes, url: url, key: resolver.cacheKey(url), checkAddress: checkAddress, range: 0..<CacheStore.blockSize,
                  options: HomeFetch.Options(sniff: true)) { outcome in
            switch outcome {
            case let .failed(reason, status, retryAfter):
                done(.failure(DownloadEngine.inputError(url, reason, status: status, retryAfter: retryAfter)))
            case let .stored(s):
                check(s.kind ?? .file)
            }
        }.start()
    }

    /// The error a failed fetch of a download's URL answers: a 4xx says the URL is wrong (400);
    /// a 5xx, a 429 or no answer says the origin failed, not the input (502).
    static func inputError(_ url: UpstreamURL, _ reason: String, status: Int?, retryAfter: Double?) -> DownloadInputError {
        let originFailed = status.map { $0 >= 500 || $0 == 429 } ?? true
        return DownloadInputError("\(url.pathAndQuery): \(reason)", status: originFailed ? 502 : 400, retryAfter: retryAfter)
    }

    /// Builds a file job's plan: its length and whether the origin takes ranges, from a probe of
    /// the first block (answered at once from the cache when held); with `fetch` false (a job
    /// restored paused, completed or failed), from what the cache holds alone.
    func buildFilePlan(_ job: DownloadJob, fetch: Bool) {
        let key = fileKey(job)
        guard fetch else {
            return homes.ask(onHomeOf: key, { h in
                h.store.lookup(key, now: h.loop.wallClock())?.meta.length
            }, then: { [weak self, weak job] length in
                guard let self, let job, let length else { return }
                planFile(job, length: length, acceptsRanges: true, fetch: false)
            })
        }
        let probe = HomeFetch(homes: homes, url: job.url, key: key, checkAddress: job.checkAddress,
                              range: 0..<CacheStore.blockSize, options: HomeFetch.Options(pin: true), limiters: limiters(of: job)) {
            [weak self, weak job] outcome in
            guard let self, let job else { return }
            job.resolving.removeAll { !$0.isWaiting }
            guard planWanted(job, fetch: true) else { return }
            switch outcome {
            case let .failed(reason, _, retryAfter):
                planFailed(job, "\(job.url.pathAndQuery): \(reason)", retryAfter: retryAfter)
            case let .stored(s):
                job.planFailures = 0
                planFile(job, length: s.length, acceptsRanges: s.acceptsRanges, fetch: true)
            }
        }
        job.resolving.append(probe)
        probe.start()
    }

    private func planFile(_ job: DownloadJob, length: Int?, acceptsRanges: Bool, fetch: Bool) {
        guard planWanted(job, fetch: fetch) else { return }
        let plan = DownloadPlan.file(url: job.url, length: length, acceptsRanges: acceptsRanges, concurrency: settings.concurrency,
                                     key: job.staging ? fileKey(job) : nil)
        job.planGeneration += 1
        let generation = job.planGeneration
        storedBytes(plan.units, pin: job.state.holdsPins) { [weak self] stored in
            guard let self, job.planGeneration == generation, planWanted(job, fetch: fetch) else { return }
            adoptPlan(job, plan, master: nil, stored: stored, fetch: fetch)
            // Built from the cache alone, without asking whether the origin takes ranges: a
            // run probes first and plans again.
            if !fetch { job.planStale = true }
            // Stopped (by a restart) between a new version's completion and its taking its place.
            if job.state == .completed { promote(job) }
        }
    }
}
