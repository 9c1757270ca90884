import EddyCache
import EddyCore
import EddyHLS
import EddyLoop
import EddyResources
import Foundation

/// Live and EVENT downloads: a media playlist without EXT-X-ENDLIST is recorded. It is reloaded
/// as a player would (RFC 8216bis section 6.3.4: one target duration after it changed, half of
/// one after it did not), each reload's new segments join the recording (`LiveRecording`, kept
/// in the job database segment by segment) and the plan, and the job completes once every
/// recording has ended (EXT-X-ENDLIST, `duration`, or an origin that stopped adding segments)
/// and its segments are stored. Offline, the recording is served in place of the live playlist,
/// as VOD.
extension DownloadEngine {
    /// The media playlists a plan is built from: a live rendition's recording (started here from
    /// the window just loaded, or read back after a restart, and grown by it), others as loaded.
    func mediaForPlan(_ job: DownloadJob, loaded: [UpstreamURL: HLSPlaylist]) -> [UpstreamURL: MediaPlaylist] {
        var media: [UpstreamURL: MediaPlaylist] = [:]
        for (u, p) in loaded {
            var recording = job.recordings[u]
            if recording == nil, case .live = p.kind {
                recording = LiveRecording(limit: (try? job.spec.recordingLimit()) ?? nil)
                job.lastGrowth = EventLoop.monotonic()
                logger.info("download records a live playlist", metadata: ["id": "\(job.id)", "playlist": "\(u.pathAndQuery)"])
            }
            guard var r = recording else {
                media[u] = MediaPlaylist(p)
                continue
            }
            keep(job, u, r.merge(p))
            job.recordings[u] = r
            media[u] = MediaPlaylist(HLSPlaylist(r.text))
        }
        if !job.recordings.isEmpty { save(job) } // the headers, beside the segments just kept
        return media
    }


    /// The bytes of each unit the cache holds whole already, by unit id (absent: not held),
    /// asked of each home once for all its units, then handed to `done` on the main loop. With
    /// `pin`, what is held is pinned there and then: a segment a player cached before the download
    /// is the download's as much as one it fetches, and must not be evicted by the traffic that
    /// follows (issue 28). Partly held units are not done: their fetch completes them, and pins
    /// them when it ends.
    /// The units go to the homes `storedBytesBatch` at a time, one batch after the other: a
    /// look-up of each in the index, for tens of thousands of units at once, held the main loop
    /// (a home too) for a tenth of a second (issue 59).
    func storedBytes(_ units: [DownloadPlan.Unit], pin: Bool, then done: @escaping ([String: Int]) -> Void) {
        let key = keyFunction
        var held: [String: Int] = [:], start = 0
        func next() {
            let batch = Array(units[start..<min(start + DownloadEngine.storedBytesBatch, units.count)])
            start += batch.count
            homes.ask(batch, by: key, { h, mine in
                let now = h.loop.wallClock()
                return mine.compactMap { u -> (String, Int)? in
                    guard let (r, wanted) = DownloadEngine.stored(u, key: key(u), on: h, now: now), r.confirmed.contains(wanted) else { return nil }
                    if pin && !r.pinned { h.store.setPinned(r, true) }
                    return (u.id, wanted.count)
                }
            }, then: { found in
                for (id, n) in found where held[id] == nil { held[id] = n }
                if start < units.count { next() } else { done(held) }
            })
        }
        next()
    }

    static let storedBytesBatch = 2048

    /// The stored resource of unit `u` and the bytes of it the unit wants, on its home `h`; nil
    /// when nothing of known length is stored.
    static func stored(_ u: DownloadPlan.Unit, key: String, on h: ResourceHome, now: Int) -> (CachedResource, Range<Int>)? {
        guard let r = h.store.lookup(key, now: now), let len = r.meta.length else { return nil }
        return (r, u.range.map { $0.clamped(to: 0..<len) } ?? 0..<len)
    }

    /// A live playlist heard from more than half its target duration ago: players would not be
    /// served it without asking the origin, and a plan must not start from it either. On its home.
    static func isStaleLivePlaylist(_ r: CachedResource, url: UpstreamURL, on home: ResourceHome) -> Bool {
        guard case let .live(target)? = home.playlists.kind(of: r, url: url) else { return false }
        return !Freshness.livePlaylistAllows(targetDuration: target, lastHeardAt: home.coordinators.of(r).playlistFetchedAt,
                                             now: EventLoop.monotonic())
    }

    /// Seconds until the next reload: the target duration after a change, half of it after none
    /// (section 6.3.4), between 1 and 60 s whatever a playlist claims.
    func reloadDelay(_ job: DownloadJob, grew: Bool) -> Double {
        let live = job.recordings.values.filter { !$0.hasEnded }.map { Double($0.header.targetDuration) }
        let target = min(max(live.min() ?? 6, 1), 60)
        return grew ? target : max(target / 2, 1)
    }

    /// Schedules the next reload, unless one is due or running, nothing is live, or the job stopped.
    func keepRecording(_ job: DownloadJob, after delay: Double) {
        guard job.isRecording, !job.reloading, job.reloadTimer == nil,
              job.state == .running || job.state == .waitingForOrigin else { return }
        let timer = LoopTimer(loop: loop) { [weak self, weak job] in
            guard let self, let job else { return }
            job.reloadTimer = nil
            reload(job)
        }
        job.reloadTimer = timer
        timer.schedule(after: delay)
    }

    /// Reloads every live playlist of the job (conditional requests through the coordinators,
    /// so a player's reloads and the job's are one request when they meet).
    private func reload(_ job: DownloadJob) {
        let live = job.recordings.filter { !$0.value.hasEnded }.map(\.key)
        guard !live.isEmpty, job.state == .running || job.state == .waitingForOrigin else { return }
        job.reloading = true
        var pending = live.count, grew = false, reported = false
        var failure: DownloadInputError?
        func ended() {
            guard pending == 0, !reported else { return }
            reported = true
            reloaded(job, live: live, grew: grew, failure: failure)
        }
        for u in live {
            guard case let .allow(checkAddress) = resolver.gate.check(u) else {
                pending -= 1
                failure = failure ?? DownloadInputError("\(u.pathAndQuery): refused by the upstream gate")
                continue
            }
            loadPlaylist(u, checkAddress: checkAddress, job: job, refresh: .always) { [weak self, weak job] result in
                guard let self, let job else { return }
                pending -= 1
                switch result {
                case let .success(p):
                    if var r = job.recordings[u] {
                        let restarts = r.header.originRestarts
                        let added = r.merge(p)
                        if r.header.originRestarts != restarts {
                            logger.warning("the origin restarted its media sequence numbers; the recording goes on after a discontinuity",
                                           metadata: ["id": "\(job.id)", "playlist": "\(u.pathAndQuery)"])
                        }
                        job.recordings[u] = r
                        keep(job, u, added)
                        grew = grew || !added.isEmpty
                    }
                case let .failure(e): failure = failure ?? e
                }
                ended()
            }
        }
        ended()
    }

    private func reloaded(_ job: DownloadJob, live: [UpstreamURL], grew: Bool, failure: DownloadInputError?) {
        job.reloading = false
        job.resolving.removeAll { !$0.isWaiting }
        guard job.state == .running || job.state == .waitingForOrigin else { return }
        let now = EventLoop.monotonic()
        if let failure {
            // Counted like a segment's failure: the job waits for the origin, and fails (keeping
            // what it recorded) only after `download_retries` reloads in a row failed.
            job.reloadFailures += 1
            perform(job.machine.segmentFailed("playlist reload", reason: failure.description, consecutive: job.reloadFailures,
                                              retryAfter: failure.retryAfter, now: now, jitter: Double.random(in: 0..<1)), job)
        } else {
            job.reloadFailures = 0
            perform(job.machine.segmentSucceeded(now: now), job)
            if grew {
                job.lastGrowth = now
            } else {
                for u in live where job.recordings[u].map({ now - job.lastGrowth >= $0.stallSeconds }) == true {
                    job.recordings[u]?.end(.stalled)
                    logger.warning("live playlist stopped growing; the recording ends", metadata: ["id": "\(job.id)", "playlist": "\(u.pathAndQuery)"])
                }
            }
        }
        for u in live where job.recordings[u]?.hasEnded == true {
            let h = job.recordings[u]!.header
            logger.info("live recording ended", metadata: ["id": "\(job.id)", "playlist": "\(u.pathAndQuery)",
                                                         "reason": "\(h.ended!.rawValue)", "seconds": "\(h.mediaSeconds)", "missed": "\(h.missed)"])
        }
        replan(job)
        // What the reload added must fit beside the pins like any plan: a recording without
        // `duration` is measured here, reload by reload, and waits (missing what the live window
        // drops meanwhile) rather than pin more than `--max-size`.
        if job.state == .running, let why = spaceShortfall(job) {
            perform(job.machine.noSpace(why), job)
            save(job)
            changed(job)
            return schedule()
        }
        save(job)
        changed(job)
        pump(job)
        let wait = failure.map { max(reloadDelay(job, grew: false), $0.retryAfter ?? 0) } ?? reloadDelay(job, grew: grew)
        keepRecording(job, after: wait)
    }

    /// A live segment the origin answers 404 or 410 for once its playlist's window has moved past
    /// it is gone for good: the recording drops it (counted in `missed_segments`, a discontinuity
    /// where it was) and the unit is settled, instead of failing the job over a segment nobody
    /// can have. True when that is what happened.
    func dropGoneLiveSegment(_ job: DownloadJob, _ i: Int, status: Int?) -> Bool {
        guard status == 404 || status == 410, let plan = job.plan, plan.units[i].kind == .segment,
              let r = plan.units[i].rendition, plan.units[i].range == nil else { return false }
        let url = plan.renditions[r].url
        guard var rec = job.recordings[url], let windowStart = rec.windowStart,
              let seg = rec.segments.first(where: { $0.lines.last == plan.units[i].name }), seg.sequence < windowStart else { return false }
        rec.drop(sequence: seg.sequence)
        job.recordings[url] = rec
        do { try database?.forget(job: job.id, rendition: url.description, sequence: seg.sequence) } catch {
            logger.error("cannot save a live recording", metadata: ["id": "\(job.id)", "error": "\(error)"])
        }
        job.units.drop(i)
        replan(job) // the renditions' totals, from the recording as it is now
        job.record(["event": "missed", "kind": "segment", "uri": plan.units[i].name, "status": "\(status ?? 0)"])
        logger.warning("a live segment left the origin before it was fetched; the recording marks the gap",
                       metadata: ["id": "\(job.id)", "uri": "\(plan.units[i].name)"])
        save(job)
        changed(job)
        return true
    }

    /// The plan again with the recordings as they are now; planned units keep their state.
    private func replan(_ job: DownloadJob) {
        guard let inputs = job.planInputs else { return }
        var media = inputs.media
        for (u, r) in job.recordings { media[u] = MediaPlaylist(HLSPlaylist(r.text)) }
        let plan = DownloadPlan.build(url: job.url, playlist: inputs.playlist, selection: inputs.selection, media: media)
        let before = job.plan?.units.count ?? 0
        job.grow(plan)
        // The new units the cache holds already are settled when their homes answer; one the pump
        // starts meanwhile is served by the cache and settles the same way.
        guard let units = job.plan?.units, units.count > before else { return }
        storedBytes(Array(units[before...]), pin: job.state.holdsPins) { [weak self] stored in
            if job.settle(stored, from: before) { self?.changed(job) }
        }
    }

    /// Writes a recording's new segments to the job database (the header goes with the job's record).
    private func keep(_ job: DownloadJob, _ url: UpstreamURL, _ added: [RecordedSegment]) {
        guard let database, !added.isEmpty else { return }
        let encoder = JSONEncoder()
        let rows = added.compactMap { s in
            (try? encoder.encode(s)).flatMap { String(data: $0, encoding: .utf8) }.map { (sequence: s.sequence, record: $0) }
        }
        do { try database.record(job: job.id, rendition: url.description, rows) } catch {
            logger.error("cannot save a live recording", metadata: ["id": "\(job.id)", "error": "\(error)"])
        }
    }
}
