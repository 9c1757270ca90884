import EddyCore
import EddyLoop

extension DownloadEngine {
    /// A job as the API shows it.
    package func info(_ job: DownloadJob) -> DownloadInfo {
        let (total, per) = job.progress()
        // What is shown is kept first (a WAL commit outlives kill -9): it never shows less later.
        if job.floorsRaised != job.savedFloors, self.job(job.id) === job { save(job) }
        let rate = job.rate(bytesDone: total.bytesDone, now: EventLoop.monotonic())
        let complete = job.completeRenditions()
        let renditions = (job.plan?.renditions ?? []).enumerated().map { i, r in
            RenditionProgress(type: r.selected.type.rawValue.lowercased(), uri: r.url.description, language: r.selected.language,
                              name: r.selected.name, groupID: r.selected.groupID, variantIndex: r.selected.variantIndex,
                              complete: complete.contains(i), progress: per[i])
        }
        let left = total.bytesExpected - total.bytesDone
        // A file job shows its range map from the start: empty, with no length, until the origin's
        // first answer has made its plan (the schema's "null until the origin said").
        let file = job.kind != .file ? nil : job.plan.map { p in
            FileHeld(length: p.fileLength, ranges: p.heldRanges(done: job.units.done).map { [$0.lowerBound, $0.upperBound] })
        } ?? FileHeld(length: nil, ranges: [])
        return DownloadInfo(id: job.id, url: job.spec.url, kind: job.kind.rawValue, file: file, title: job.spec.title, state: job.state.rawValue,
                            failure: job.machine.failure, createdAt: job.createdAt, completedAt: job.completedAt,
                            progress: total, rate: rate, etaSeconds: rate > 0 && left > 0 ? Double(left) / rate : nil,
                            playableOffline: playableOffline(job, complete: complete), offlineURL: offlineURL(job),
                            renditions: renditions,
                            reason: job.machine.reason, priority: job.policy.priority.rawValue, expiresAt: job.policy.expiresAt,
                            pinnedBytes: job.pinnedBytes, keys: job.plan?.keys,
                            window: window(of: job)?.description, nextStart: nextStart(job),
                            rateLimit: job.rateLimiter.rate > 0 ? job.rateLimiter.rate : nil,
                            artwork: job.hasArtwork ? "/api/downloads/\(job.id)/artwork" : nil,
                            recording: RecordingInfo(job.plan?.renditions.compactMap { job.recordings[$0.url] } ?? Array(job.recordings.values)))
    }
}
