import EddyCache
import EddyCore
import EddyHLS

/// What offline playback needs from the downloads: which renditions are held whole, and whether
/// a job's asset would play with the origin gone.
extension DownloadEngine {
    /// URLs of the renditions that downloads of the playlist at `master` hold whole; nil when no
    /// download is of it (the playlist is then served as it is).
    func completeRenditions(of master: UpstreamURL) -> Set<String>? {
        let of = jobs.filter { $0.url == master && $0.state.holdsPins }
        guard !of.isEmpty else { return nil }
        var out = Set<String>()
        for j in of {
            guard let plan = j.plan else {
                out.formUnion(j.restoredComplete)
                continue
            }
            for r in j.completeRenditions() { out.insert(plan.renditions[r].url.description) }
        }
        return out
    }

    /// True when a player could play the job's asset with the origin gone: its multivariant
    /// playlist is stored and, cut down to what downloads hold whole (as it is served offline),
    /// still lists a variant; or, for a media playlist, the playlist and all its segments are stored.
    /// `complete` is `job.completeRenditions()`, which the caller has at hand. The stored playlist
    /// is the job's copy of it, the one its plan was built from, read again on its home when what
    /// the job holds whole changes (`readStoredMaster`): the API answers without waiting on a home.
    package func playableOffline(_ job: DownloadJob, complete: Set<Int>) -> Bool {
        guard let plan = job.plan else { return false }
        return format(of: job.kind).playableOffline(job, plan: plan, complete: complete)
    }

    /// `playableOffline` of an HLS job.
    func hlsPlayableOffline(_ job: DownloadJob, plan: DownloadPlan, complete: Set<Int>) -> Bool {
        guard plan.isMultivariant else { return complete.contains(0) }
        // Nothing held whole (the usual case while a job starts): no need to read the playlist.
        guard let held = completeRenditions(of: job.url), !held.isEmpty,
              let p = job.storedMaster?.playlist else { return false }
        let offline = OfflineMultivariant.filter(p) { uri in
            URIReference.resolve(uri, against: job.url).map { held.contains($0.description) } ?? false
        }
        return offline.lines.contains { $0.text.hasPrefix("#EXT-X-STREAM-INF") }
    }

    /// Reads the job's stored multivariant playlist on its home into `job.storedMaster` again when
    /// the renditions it holds whole changed since the last read (one read at a time; a change
    /// during one reads again after it): the master may have been revalidated, or purged. The copy
    /// read before stays in use meanwhile. Observers hear of the job again if the new copy changes
    /// what `playableOffline` says.
    func readStoredMaster(_ job: DownloadJob) {
        guard job.plan?.isMultivariant == true, let known = job.storedMaster else { return }
        let complete = job.completeRenditions()
        guard known.complete != complete, !job.readingMaster else { return }
        job.readingMaster = true
        storedPlaylist(job.url) { [weak self, weak job] p in
            guard let self, let job else { return }
            job.readingMaster = false
            let before = playableOffline(job, complete: complete)
            job.storedMaster = (p, complete)
            if playableOffline(job, complete: complete) != before { notify(job) }
            readStoredMaster(job) // what it holds changed again meanwhile
        }
    }

    /// Publishes what the jobs hold for offline playback (`catalog`), for every loop's exchanges.
    func publishCatalog() {
        var renditions: [String: Set<String>] = [:]
        var recordings: [String: LiveRecording] = [:]
        for j in jobs where j.state.holdsPins && format(of: j.kind).cutsManifestOffline {
            var held = renditions[j.url.description] ?? []
            if let plan = j.plan {
                for r in j.completeRenditions() { held.insert(plan.renditions[r].url.description) }
            } else {
                held.formUnion(j.restoredComplete) // until the plan is built again after a restart
            }
            renditions[j.url.description] = held
            for (u, rec) in j.recordings where rec.segments.count > (recordings[u.description]?.segments.count ?? -1) {
                recordings[u.description] = rec
            }
        }
        catalog.publish(renditions: renditions, recordings: recordings)
    }
}
