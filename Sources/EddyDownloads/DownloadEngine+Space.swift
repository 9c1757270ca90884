import EddyCache
import EddyCore
import EddyHLS
import EddyLoop
import EddyResources
import Foundation

/// Pins and space: what a download may take beside the others under `--max-size`, releasing an
/// expired or deleted download, and adding renditions to one (issue 13).
extension DownloadEngine {
    /// Why `job` cannot run now, or nil when it fits: the bytes it still needs against what
    /// `--max-size` leaves beside the pinned downloads and what the other running jobs will still
    /// pin. Sizes not given by byte ranges are estimates (bytes per media second seen so far, or
    /// the variant's peak BANDWIDTH), so this errs on the side of waiting.
    func spaceShortfall(_ job: DownloadJob) -> String? {
        let budget = cache.budget
        guard budget > 0 else { return nil }
        func left(_ j: DownloadJob) -> Int {
            let (total, per) = j.progress() // once: it walks every unit
            return max(0, total.bytesExpected - total.bytesDone) + recordingAhead(j, per: per)
        }
        let need = left(job)
        guard need > 0 else { return nil }
        let reserved = jobs.filter { $0 !== job && $0.state.holdsSlot }.reduce(0) { $0 + left($1) }
        let free = budget - cache.pinnedBytes - reserved
        guard need > free else { return nil }
        let mib = { (n: Int) in String(format: "%.1f MiB", Double(n) / 1_048_576) }
        return "needs \(mib(need)) more, and \(mib(max(0, free))) of max-size \(mib(budget)) is free beside " +
            "the pinned downloads; waiting for one to be deleted or to expire"
    }

    /// Bytes a job's live recordings will still add before their `duration` is reached: the media
    /// seconds left times each rendition's bytes per media second so far (`per`, the job's progress
    /// per rendition) or its peak BANDWIDTH.
    /// A recording without `duration` runs until the origin ends it: nothing is reserved for it,
    /// and it is measured again at each reload instead (see `reloaded`).
    func recordingAhead(_ job: DownloadJob, per: [DownloadProgress]) -> Int {
        guard job.isRecording, let plan = job.plan else { return 0 }
        var total = 0.0
        for (i, r) in plan.renditions.enumerated() {
            guard let rec = job.recordings[r.url], !rec.hasEnded, let limit = rec.header.limit else { continue }
            let seconds = max(0, limit - rec.header.mediaSeconds)
            let rate = i < per.count && per[i].mediaSecondsDone > 0 ? Double(per[i].bytesDone) / per[i].mediaSecondsDone
                : Double(r.bandwidth ?? 0) / 8
            total += seconds * rate
        }
        return Int(min(total, Double(Int.max / 2)))
    }

    /// Something was unpinned: jobs waiting for space are measured again, most important first.
    func spaceFreed() {
        for j in jobs where j.state == .waitingForSpace {
            perform(j.machine.spaceFreed(), j)
            changed(j)
        }
        schedule()
    }

    /// Unpins what `job` holds and no live download also holds; with `delete`, also removes it
    /// from the cache (but not while a response is sending from it). `done` runs on the main loop
    /// once every home has done its part.
    func release(_ job: DownloadJob, delete: Bool, then done: @escaping () -> Void) {
        var kept = Set<String>()
        for other in jobs where other !== job && other.state.holdsPins { kept.formUnion(heldKeys(other)) }
        // By key: two jobs of one asset signed differently hold the same stored copies.
        let keys = heldKeys(job).filter { !kept.contains($0) }
        // The space check runs in `done`: the pinned bytes it reads must not count these.
        homes.ask(Array(keys), by: { $0 }, { h, mine -> [Void] in
            let now = h.loop.wallClock()
            for key in mine {
                guard let r = h.store.lookup(key, now: now) else { continue }
                h.store.setPinned(r, false)
                if delete && !h.coordinators.of(r).isInUse { h.store.remove(r) }
            }
            return []
        }, then: { _ in done() })
    }

    /// Units whose stored copy the cache lost (see `DownloadCacheWatcher`) are no longer done:
    /// their jobs fetch them again (a completed one queues again). Playlists are left alone: a
    /// live one changes at every reload, and a job reads them afresh when it plans.
    func storedCopiesLost(_ keys: Set<String>) {
        for job in jobs where job.state.holdsPins {
            guard let plan = job.plan else { continue }
            var lost: [String] = []
            for (i, u) in plan.units.enumerated() where job.units.done[i] && u.kind != .playlist && keys.contains(cacheKey(of: u)) {
                job.units.lost(i)
                lost.append(u.name)
            }
            guard !lost.isEmpty else { continue }
            logger.info("a download's stored copy was replaced or damaged; fetching it again",
                        metadata: ["id": "\(job.id)", "units": "\(lost.joined(separator: " "))"])
            for name in lost { job.record(["event": "lost", "uri": name]) }
            perform(job.machine.unitLost(), job)
            if job.state == .running { pump(job) }
            changed(job)
        }
        schedule()
    }

    /// Runs `action` from the loop once the current event is handled, or `seconds` later.
    func soon(after seconds: Double = 0, _ action: @escaping () -> Void) {
        var timer: LoopTimer?
        timer = LoopTimer(loop: loop) {
            action()
            timer = nil // the timer keeps itself until it fires
        }
        timer?.schedule(after: seconds)
    }

    /// Jobs past their `expires` are released: state `expired`, unpinned, bytes left to eviction.
    func expireDue() {
        let now = loop.wallClock()
        for j in jobs where j.state.holdsPins {
            guard let at = j.policy.expiresAt, at <= now else { continue }
            perform(j.machine.expire(), j)
            release(j, delete: false) { [self] in spaceFreed() }
            logger.info("download expired", metadata: ["id": "\(j.id)"])
            save(j)
            changed(j)
        }
    }

    /// Adds audio and subtitle renditions to the job's primary configuration (`PATCH`, `eddy
    /// download add-media`): validated against the asset like a new job, then only what is not
    /// stored yet is fetched. An automatic selection (no list given at creation) becomes the
    /// renditions it chose plus the new ones.
    package func extend(_ job: DownloadJob, audio: [String]?, subtitles: [String]?,
                done: @escaping (Result<DownloadJob, DownloadInputError>) -> Void) {
        guard job.state.holdsPins else {
            return done(.failure(DownloadInputError("download \(job.id) is \(job.state.rawValue)", status: 409)))
        }
        var spec = job.spec
        func chosen(_ type: RenditionType) -> [String]? {
            guard let plan = job.plan else { return nil }
            return plan.renditions.filter { $0.selected.type == type }.map { $0.selected.language ?? "name:\($0.selected.name ?? "")" }
        }
        for (type, added) in [(RenditionType.audio, audio), (.subtitles, subtitles)] {
            guard let added, !added.isEmpty else { continue }
            let old = type == .audio ? spec.audio : spec.subtitles
            guard var list = old ?? chosen(type) else {
                return done(.failure(DownloadInputError("download \(job.id) has no plan yet; try again when it runs", status: 409)))
            }
            list.removeAll { $0.lowercased() == "none" }
            for a in added where !list.contains(where: { $0.lowercased() == a.lowercased() }) { list.append(a) }
            if type == .audio { spec.audio = list } else { spec.subtitles = list }
        }
        guard spec != job.spec else { return done(.success(job)) }
        checkSelection(spec, url: job.url, checkAddress: job.checkAddress) { [weak self, weak job] error in
            guard let self, let job else { return }
            if let error { return done(.failure(error)) }
            job.spec = spec
            job.planStale = true
            if job.state.holdsSlot { stopFetching(job) }
            logger.info("download extended", metadata: ["id": "\(job.id)", "audio": "\(spec.audio ?? [])", "subtitles": "\(spec.subtitles ?? [])"])
            perform(job.machine.extended(), job)
            save(job)
            changed(job)
            done(.success(job))
            schedule()
        }
    }
}
