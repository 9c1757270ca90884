import EddyCore
import EddyHLS
import EddyResources

/// Refresh (`POST /api/downloads/{id}/refresh`, `eddy download refresh`), as AVFoundation lets an
/// app add what the server gained since (a new HD variant, a new language): the multivariant
/// playlist is read again from the origin and the job's own selection made anew. What it now
/// picks and does not hold is added and fetched; what it held stays held. Nothing held is
/// fetched again. A file download checks its validator instead (`refreshFile`).
extension DownloadEngine {
    package func refresh(_ job: DownloadJob, done: @escaping (Result<RefreshReport, DownloadInputError>) -> Void) {
        guard job.state.holdsPins else {
            return done(.failure(DownloadInputError("download \(job.id) is \(job.state.rawValue)", status: 409)))
        }
        format(of: job.kind).refresh(job, done: done)
    }

    /// Refresh of an HLS job (see `refresh`).
    func refreshHLS(_ job: DownloadJob, done: @escaping (Result<RefreshReport, DownloadInputError>) -> Void) {
        guard let plan = job.plan, !job.planStale else {
            return done(.failure(DownloadInputError("download \(job.id) has no plan yet; try again when it runs", status: 409)))
        }
        guard job.recordings.isEmpty else {
            return done(.failure(DownloadInputError("download \(job.id) records a live stream, which follows its playlists by itself", status: 409)))
        }
        // Revalidated whatever its freshness: the point is to ask the origin (RFC 9111 section 4.3.1).
        // Not as one of the job's own fetches: stopping the job (a pause, a plan made again) must
        // not swallow the answer. The stored master stays pinned through a new version.
        loadPlaylist(job.url, checkAddress: job.checkAddress, refresh: .always, askOrigin: true) { [weak self] result in
            guard let self else { return }
            switch result {
            case let .failure(e): done(.failure(e))
            case let .success(p):
                guard case .multivariant = p.kind else {
                    // A media playlist alone: its segments as the origin lists them now.
                    let only = SelectedRendition(type: .video, uri: job.url.description)
                    let now = DownloadPlan.build(url: job.url, playlist: nil, selection: [only], media: [job.url: MediaPlaylist(p)])
                    let known = Set(plan.units.map(\.id))
                    let added = now.units.filter { !known.contains($0.id) }.map(\.name)
                    return refreshed(job, added: added, kept: [], done: done)
                }
                let mv = MultivariantPlaylist(p)
                let selection: [SelectedRendition]
                do {
                    let c = try job.spec.configurations()
                    selection = try AssetSelector.select(mv, primary: c.primary, auxiliary: c.auxiliary, locale: locale).renditions
                } catch {
                    return done(.failure(DownloadInputError("the playlist as the origin serves it now: \(error)", status: 409)))
                }
                let url = { (s: SelectedRendition) in URIReference.resolve(s.uri, against: job.url) }
                let held = Set(plan.renditions.map(\.url))
                let picked = Set(selection.compactMap(url))
                let added = selection.filter { url($0).map { !held.contains($0) } ?? false }
                let kept = plan.renditions.filter { !picked.contains($0.url) }.map(\.selected)
                for k in kept where !job.keptRenditions.contains(where: { $0.uri == k.uri }) { job.keptRenditions.append(k) }
                refreshed(job, added: added.map(\.uri), kept: kept.map(\.uri), done: done)
            }
        }
    }

    /// Reports a refresh; when it added anything, the job plans again (only what is not stored is
    /// fetched) and a completed job queues to fetch it.
    private func refreshed(_ job: DownloadJob, added: [String], kept: [String], done: (Result<RefreshReport, DownloadInputError>) -> Void) {
        let changed = !added.isEmpty
        job.record(["event": "refresh", "result": changed ? "added" : "unchanged", "added": added.joined(separator: " "),
                    "kept": kept.joined(separator: " ")])
        logger.info("download refreshed", metadata: ["id": "\(job.id)", "added": "\(added)", "kept": "\(kept)"])
        let detail = changed ? "added \(added.count) rendition(s); the \(kept.count) no longer picked stay held"
                             : "nothing new for this selection"
        if changed { planAgain(job) } else { save(job) }
        done(.success(RefreshReport(id: job.id, changed: changed, added: added, kept: kept, detail: detail)))
    }

    /// The job builds its plan again when it runs next (at once when running); a completed job
    /// queues again.
    func planAgain(_ job: DownloadJob) {
        job.planStale = true
        if job.state.holdsSlot { stopFetching(job) }
        perform(job.machine.extended(), job)
        save(job)
        changed(job)
        schedule()
    }

    /// `selection` and the renditions refreshes kept that it does not pick, each with its variant
    /// index in `mv` (nil when `mv` no longer lists it).
    func withKept(_ selection: [SelectedRendition], of job: DownloadJob, in mv: MultivariantPlaylist) -> [SelectedRendition] {
        let url = { (uri: String) in URIReference.resolve(uri, against: job.url) }
        let picked = Set(selection.compactMap { url($0.uri) })
        var out = selection
        for var k in job.keptRenditions where !(url(k.uri).map(picked.contains) ?? true) {
            if k.variantIndex != nil { k.variantIndex = mv.variants.first { url($0.uri) == url(k.uri) }?.index }
            out.append(k)
        }
        return out
    }

    // MARK: - keys

    /// The cache key a unit is fetched and held under.
    func cacheKey(of unit: DownloadPlan.Unit) -> String { unit.key ?? resolver.cacheKey(unit.url) }

    /// `cacheKey(of:)` as a value, for closures run on the homes (the routes as they are now).
    var keyFunction: (DownloadPlan.Unit) -> String {
        let resolver = self.resolver
        return { $0.key ?? resolver.cacheKey($0.url) }
    }

    /// Every key the job holds pinned: its units', and while a file's new version is staged, the
    /// old version's too.
    func heldKeys(_ job: DownloadJob) -> Set<String> {
        var keys = Set((job.plan?.units ?? []).map(cacheKey(of:)))
        if job.staging { keys.insert(resolver.cacheKey(job.url)) }
        return keys
    }
}
