import EddyCore
import EddyLoop
import EddyResources

/// A file download's refresh: one conditional request for one byte (`ChangeProbe`) says whether
/// the origin's file changed. An unchanged file costs a 304. A changed one is fetched, as any
/// file download, under the staging key beside the old version, which stays whole, pinned and
/// served at its URL until the new one is complete and takes its place (`promote`). The new
/// version's plan is made for its own length.
extension DownloadEngine {
    func refreshFile(_ job: DownloadJob, done: @escaping (Result<RefreshReport, DownloadInputError>) -> Void) {
        if job.staging {
            return done(.success(RefreshReport(id: job.id, changed: true, length: job.plan?.fileLength,
                                               detail: "a new version is being fetched already")))
        }
        guard job.allStored, let old = job.plan?.fileLength else {
            return done(.failure(DownloadInputError(
                "download \(job.id) is not held whole yet; its fetches follow the origin's current version already (If-Range)", status: 409)))
        }
        let key = resolver.cacheKey(job.url), url = job.url, checkAddress = job.checkAddress
        let main = homes.all[0]
        let started = EventLoop.monotonic()
        // The job held strongly: deleted meanwhile, the request is still answered.
        let deliver = { [weak self] (outcome: ChangeProbe.Outcome) in
            guard let self else { return }
            let ms = "\(Int((EventLoop.monotonic() - started) * 1000))"
            switch outcome {
            case let .failed(reason, status):
                job.record(["event": "error", "kind": "refresh", "uri": url.pathAndQuery, "status": status.map(String.init) ?? "-",
                            "ms": ms, "error": reason])
                done(.failure(DownloadInputError("\(url.pathAndQuery): \(reason)", status: 502)))
            case .notStored:
                // Purged since it was whole (no origin was asked): as `export` says, the file is
                // not held whole; `verify` or `resume` fetch it again (RFC 9110 section 15.5.10).
                done(.failure(DownloadInputError("download \(job.id): its file is no longer held whole (purged?); "
                    + "verify or resume it to fetch it again", status: 409)))
            case .unchanged:
                job.record(["event": "refresh", "result": "unchanged", "uri": url.pathAndQuery, "ms": ms])
                save(job)
                done(.success(RefreshReport(id: job.id, changed: false, length: old, detail: "the origin's file is the one held")))
            case let .changed(length):
                // Refreshed again, deleted or expired while the probe was out.
                if job.staging {
                    return done(.success(RefreshReport(id: job.id, changed: true, length: length, detail: "a new version is being fetched already")))
                }
                guard job.state.holdsPins else {
                    return done(.failure(DownloadInputError("download \(job.id) is \(job.state.rawValue)", status: 409)))
                }
                job.staging = true
                // Progress is the new version's from now on (the old one's floor would show it
                // done): a provisional plan of its length, made exact when the job runs.
                job.floor = DownloadProgress()
                job.adopt(DownloadPlan.file(url: url, length: length, acceptsRanges: true, concurrency: settings.concurrency,
                                            key: fileKey(job)), stored: [:])
                job.record(["event": "refresh", "result": "changed", "uri": url.pathAndQuery, "ms": ms,
                            "bytes": length.map(String.init) ?? "-"])
                logger.info("a downloaded file changed at the origin; fetching the new version beside the old",
                            metadata: ["id": "\(job.id)", "length": "\(length.map(String.init) ?? "unknown")"])
                planAgain(job)
                done(.success(RefreshReport(id: job.id, changed: true, length: length,
                                            detail: "the origin's file changed; the new version is fetched, the old one kept until it is whole")))
            }
        }
        homes.run(onHomeOf: key) { h in
            ChangeProbe(coordinators: h.coordinators, url: url, key: key, checkAddress: checkAddress) { outcome in
                if main.isCurrent { deliver(outcome) } else { main.mailbox.post { deliver(outcome) } }
            }.start()
        }
    }

    /// The key a file job's fetches use now: its URL's, or the staging key while a new version is
    /// fetched.
    func fileKey(_ job: DownloadJob) -> String {
        let key = resolver.cacheKey(job.url)
        return job.staging ? Coordinators.stagingKey(key) : key
    }

    /// The staged version is whole: it takes the URL's key (the old version is dropped, responses
    /// reading it ending cleanly) and the plan's units go back to their URL's key. Tried again
    /// each second while the staged copy is in use.
    func promote(_ job: DownloadJob) {
        guard job.staging, job.allStored else { return }
        let key = resolver.cacheKey(job.url)
        homes.ask(onHomeOf: key, { h in h.coordinators.promoteStaged(key) }, then: { [weak self, weak job] done in
            guard let self, let job, job.staging else { return }
            guard done else {
                guard job.state.holdsPins else { return }
                return soon(after: 1) { [weak self, weak job] in
                    if let self, let job { promote(job) }
                }
            }
            job.staging = false
            if var plan = job.plan {
                for i in plan.units.indices { plan.units[i].key = nil }
                job.plan = plan
            }
            job.record(["event": "refresh", "result": "replaced", "uri": job.url.pathAndQuery,
                        "bytes": job.plan?.fileLength.map(String.init) ?? "-"])
            logger.info("a downloaded file's new version replaced the old", metadata: ["id": "\(job.id)"])
            save(job)
            changed(job)
        })
    }
}
