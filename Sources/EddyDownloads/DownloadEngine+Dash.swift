import EddyCore
import EddyDASH
import EddyHLS
import EddyResources

/// MPEG-DASH downloads: the MPD fetched into the cache (pinned for a job) and read off the main
/// loop into its tracks, the selection made over them as over an HLS asset's (`DashTracks`), and
/// a plan of the selected representations' initialization and media segments. Fetching,
/// retries, pins and progress are the engine's, the same as for HLS.
extension DownloadEngine {
    /// Fetches the MPD at `url` whole and reads its tracks; a 400-class error when it is not an
    /// MPD eddy takes (malformed, a DTD, too large, a template listing too many segments).
    package func loadMPD(_ url: UpstreamURL, checkAddress: Bool, job: DownloadJob? = nil,
                 done: @escaping (Result<DashTracks, DownloadInputError>) -> Void) {
        let options = HomeFetch.Options(pin: job != nil, readBody: MPDDocument.maxBytes)
        let f = HomeFetch(homes: homes, url: url, key: resolver.cacheKey(url), checkAddress: checkAddress, options: options,
                          limiters: job.map(limiters(of:)) ?? []) { [weak self] outcome in
            guard let self else { return }
            switch outcome {
            case let .failed(reason, status, retryAfter):
                done(.failure(DownloadEngine.inputError(url, reason, status: status, retryAfter: retryAfter)))
            case let .stored(r):
                guard let body = r.body else {
                    return done(.failure(DownloadInputError("\(url.pathAndQuery): the MPD is not stored whole, or is larger than \(MPDDocument.maxBytes) bytes")))
                }
                buildOffLoop({ () -> Result<DashTracks, DownloadInputError> in
                    do {
                        let manifest = try MPDDocument(body).manifest(documentURL: url.description, resolve: Playlists.upstreamResolve)
                        guard !manifest.isDynamic else {
                            // Recording a live MPD (`--duration`) is not built yet: refused rather
                            // than "completed" with the few segments its window lists now.
                            return .failure(DownloadInputError("\(url.pathAndQuery): a dynamic (live) MPD cannot be downloaded yet"))
                        }
                        let tracks = DashTracks(manifest)
                        guard !tracks.tracks.isEmpty else { return .failure(DownloadInputError("\(url.pathAndQuery): the MPD lists no representation")) }
                        return .success(tracks)
                    } catch {
                        return .failure(DownloadInputError("\(url.pathAndQuery): \(error)"))
                    }
                }, then: done)
            }
        }
        job?.resolving.append(f)
        f.start()
    }

    /// Checks `spec`'s selection against the MPD at `url` (see `checkSelection` for HLS).
    func checkDashSelection(_ spec: DownloadSpec, url: UpstreamURL, checkAddress: Bool, done: @escaping (DownloadInputError?) -> Void) {
        let configs: (primary: DownloadConfiguration, auxiliary: [DownloadConfiguration])
        do { configs = try spec.configurations() } catch { return done(error) }
        loadMPD(url, checkAddress: checkAddress) { [weak self] result in
            guard let self else { return }
            switch result {
            case let .failure(e): done(e)
            case let .success(tracks):
                do {
                    _ = try AssetSelector.select(tracks.playlist, primary: configs.primary, auxiliary: configs.auxiliary, locale: locale)
                    done(nil)
                } catch {
                    done(DownloadInputError("\(error)"))
                }
            }
        }
    }

    /// Builds a DASH job's plan from its MPD (see `buildPlan`).
    func buildDashPlan(_ job: DownloadJob, fetch: Bool) {
        loadMPD(job.url, checkAddress: job.checkAddress, job: job) { [weak self, weak job] result in
            guard let self, let job, planWanted(job, fetch: fetch) else { return }
            job.resolving.removeAll()
            switch result {
            case let .failure(e): if fetch { planFailed(job, e.description, retryAfter: e.retryAfter) }
            case let .success(tracks):
                let plan: DownloadPlan
                do {
                    let c = try job.spec.configurations()
                    let s = try AssetSelector.select(tracks.playlist, primary: c.primary, auxiliary: c.auxiliary, locale: locale)
                    plan = DownloadPlan.dash(url: job.url, tracks: tracks, selection: s.renditions)
                } catch {
                    if fetch { planFailed(job, "\(error)") }
                    return
                }
                job.planFailures = 0
                job.planGeneration += 1
                let generation = job.planGeneration
                storedBytes(plan.units, pin: job.state.holdsPins) { [weak self] stored in
                    guard let self, job.planGeneration == generation, self.planWanted(job, fetch: fetch) else { return }
                    self.adoptPlan(job, plan, master: nil, stored: stored, fetch: fetch)
                }
            }
        }
    }
}
