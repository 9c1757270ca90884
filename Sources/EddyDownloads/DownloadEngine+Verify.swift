import EddyCache
import EddyCore

/// `POST /api/downloads/{id}/verify` (`eddy download verify ID`): every block of every file the
/// job holds is checked against its checksum, and the data files against what the cache has
/// open. What is missing or damaged is dropped and fetched again (the job runs again; with the
/// origin unreachable it waits for it, and the report says what is missing).
extension DownloadEngine {
    /// What a verification found. Field names are part of the API.
    package struct VerifyReport: Encodable {
        var id: String
        /// Files of the plan (segments, keys, initialization sections, playlists) and how many are held whole now.
        var files = 0
        var filesHeld = 0
        var bytesChecked = 0
        /// Files found damaged or missing (their paths and queries), and the bytes dropped.
        var damaged: [String] = []
        var bytesDropped = 0
        /// The job's state once the damaged files were handed back to it.
        var state = ""

        enum CodingKeys: String, CodingKey {
            case id, files, damaged, state
            case filesHeld = "files_held", bytesChecked = "bytes_checked", bytesDropped = "bytes_dropped"
        }
    }

    /// Checks the job's files on their homes, then hands the report to `done` on the main loop;
    /// nil when it has no plan yet.
    package func verify(_ job: DownloadJob, then done: @escaping (VerifyReport?) -> Void) {
        guard let plan = job.plan else { return done(nil) }
        let key = keyFunction
        homes.ask(Array(plan.units.enumerated()), by: { key($0.element) }, { h, mine in
            let now = h.loop.wallClock()
            return mine.map { i, u -> (Int, CacheStore.Audit, Bool) in
                // A resource read back from the index has its file opened (and checked) here.
                guard let (r, wanted) = DownloadEngine.stored(u, key: key(u), on: h, now: now) else { return (i, .init(), false) }
                let audit = h.store.audit(r, wanted)
                return (i, audit, r.confirmed.contains(wanted))
            }
        }, then: { [self] found in done(report(job, plan: plan, found)) })
    }

    private func report(_ job: DownloadJob, plan: DownloadPlan, _ found: [(Int, CacheStore.Audit, Bool)]) -> VerifyReport {
        // The plan may have grown meanwhile (renditions added): its first units are the same.
        let doneNow = { (i: Int) in i < job.units.count && job.units.done[i] }
        var report = VerifyReport(id: job.id, files: plan.units.count)
        var lost = Set<String>()
        for (i, audit, held) in found {
            report.bytesChecked += audit.bytesChecked
            report.bytesDropped += audit.bytesDropped
            if held { report.filesHeld += 1 }
            guard !held || audit.bytesDropped > 0 else { continue }
            if doneNow(i) || audit.bytesDropped > 0 { report.damaged.append(plan.units[i].url.pathAndQuery) }
            if doneNow(i) { lost.insert(cacheKey(of: plan.units[i])) }
        }
        logger.info("download verified", metadata: ["id": "\(job.id)", "files": "\(report.files)", "held": "\(report.filesHeld)",
                                                     "damaged": "\(report.damaged.count)", "bytes_checked": "\(report.bytesChecked)"])
        // The watcher hears of dropped pinned bytes too; a unit that was done and is not held at
        // all (an unpinned copy evicted) is handed back here.
        if !lost.isEmpty { storedCopiesLost(lost) }
        report.state = job.state.rawValue
        return report
    }
}
