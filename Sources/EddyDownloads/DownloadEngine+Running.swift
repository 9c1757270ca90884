import EddyCache
import EddyCore
import EddyHLS
import EddyLoop
import EddyResources
import Foundation

/// Running a job: its plan from the playlists (fetched into the cache and pinned like every other
/// unit), then its units through a window of `download_concurrency` fetches, each failure counted
/// against its unit, the state machine deciding between retry and failure.
extension DownloadEngine {
    /// Performs a state machine's action for `job`.
    func perform(_ action: DownloadJobStateMachine.Action, _ job: DownloadJob) {
        switch action {
        case .none: break
        case .fetch:
            if job.plan == nil || job.planStale { return buildPlan(job) }
            pump(job)
            keepRecording(job, after: 0) // a resumed recording reloads at once: the window moved
        case .stopFetching: stopFetching(job)
        case let .retry(at):
            let timer = LoopTimer(loop: loop) { [weak self, weak job] in
                guard let self, let job else { return }
                job.retryTimer = nil
                perform(job.machine.retryDue(now: EventLoop.monotonic()), job)
                changed(job)
            }
            job.retryTimer = timer
            timer.schedule(at: at)
        case .complete:
            job.completedAt = loop.wallClock()
            stopFetching(job)
            logger.info("download completed", metadata: ["id": "\(job.id)", "bytes": "\(job.progress().0.bytesDone)"])
            promote(job) // a refreshed file's new version takes the old one's place
            // What it still needed was reserved against the jobs waiting for space: measure them again.
            spaceFreed()
        }
        if job.state.isTerminal || job.state == .paused || job.state == .queued || job.state == .scheduled { save(job) }
    }

    func stopFetching(_ job: DownloadJob) {
        for i in job.units.stopFetches() { job.fetches.removeValue(forKey: i)?.cancel() }
        for f in job.resolving { f.cancel() }
        job.resolving.removeAll()
        job.planGeneration += 1
        job.retryTimer?.cancel()
        job.retryTimer = nil
        job.pumpTimer?.cancel()
        job.pumpTimer = nil
        job.units.resume() // resuming asks again at once
        job.reloadTimer?.cancel()
        job.reloadTimer = nil
        job.reloading = false
    }

    /// Fetches `url` whole into the cache and reads it as a playlist.
    /// `refresh` says when a stored copy is revalidated first.
    /// `askOrigin`: past any parent's stored copy too (a refresh).
    package func loadPlaylist(_ url: UpstreamURL, checkAddress: Bool, job: DownloadJob? = nil, refresh: PlaylistRefresh = .staleLive,
                      askOrigin: Bool = false, done: @escaping (Result<HLSPlaylist, DownloadInputError>) -> Void) {
        var fetch: HomeFetch?
        let revalidate: ((ResourceHome, CachedResource) -> Bool)?
        switch refresh {
        case .never: revalidate = nil
        case .staleLive: revalidate = { DownloadEngine.isStaleLivePlaylist($1, url: url, on: $0) }
        case .always: revalidate = { _, _ in true }
        }
        // A job's playlists are kept; a look without a job (variants, the check before a job is
        // created) must not unpin what a job pinned.
        let options = HomeFetch.Options(pin: job != nil, readPlaylist: true, askOrigin: askOrigin)
        let f = HomeFetch(homes: homes, url: url, key: resolver.cacheKey(url), checkAddress: checkAddress, options: options, limiters: job.map(limiters(of:)) ?? [],
                          revalidate: revalidate) { [weak self, weak job] outcome in
            guard self != nil else { return }
            if let job, let started = fetch?.startedAt {
                let ms = "\(Int((EventLoop.monotonic() - started) * 1000))"
                switch outcome {
                case let .stored(r):
                    job.record(["event": "request", "kind": "playlist", "uri": url.pathAndQuery, "status": "\(r.status)",
                                "bytes": "\(r.length ?? r.bytes)", "ms": ms, "retries": "\(job.planFailures)"])
                case let .failed(reason, status, _):
                    job.record(["event": "error", "kind": "playlist", "uri": url.pathAndQuery, "status": status.map(String.init) ?? "-",
                                "ms": ms, "retries": "\(job.planFailures)", "error": reason])
                }
            }
            switch outcome {
            case let .failed(reason, status, retryAfter):
                done(.failure(DownloadEngine.inputError(url, reason, status: status, retryAfter: retryAfter)))
            case let .stored(r):
                guard let p = r.playlist else {
                    return done(.failure(DownloadInputError("\(url.pathAndQuery) is not an HLS playlist")))
                }
                done(.success(p))
            }
        }
        fetch = f
        job?.resolving.append(f)
        f.start()
    }

    /// Builds the job's plan: the multivariant playlist, the selection, every selected media
    /// playlist; then starts fetching. With `fetch` false (a job restored completed, paused or
    /// failed) only the plan is made, from the playlists the cache keeps, so that the job's
    /// progress and what it holds for offline playback are known; a failure then leaves it as it is.
    func buildPlan(_ job: DownloadJob, fetch: Bool = true) { format(of: job.kind).buildPlan(job, fetch: fetch) }

    /// An HLS job's plan (see `buildPlan`).
    func buildHLSPlan(_ job: DownloadJob, fetch: Bool) {
        loadPlaylist(job.url, checkAddress: job.checkAddress, job: job, refresh: fetch ? .staleLive : .never) { [weak self, weak job] result in
            guard let self, let job, planWanted(job, fetch: fetch) else { return }
            switch result {
            case let .failure(e): return fetch ? planFailed(job, e.description, retryAfter: e.retryAfter) : job.resolving.removeAll()
            case let .success(p):
                guard case .multivariant = p.kind else {
                    let only = SelectedRendition(type: .video, uri: job.url.description)
                    return loadMedia(job, playlist: nil, selection: [only], fetch: fetch)
                }
                let mv = MultivariantPlaylist(p)
                do {
                    let c = try job.spec.configurations()
                    let s = try AssetSelector.select(mv, primary: c.primary, auxiliary: c.auxiliary, locale: locale)
                    loadMedia(job, playlist: mv, master: p, selection: withKept(s.renditions, of: job, in: mv), fetch: fetch)
                } catch {
                    fetch ? planFailed(job, "\(error)") : job.resolving.removeAll()
                }
            }
        }
    }

    /// Whether a plan being built is still wanted when its playlists arrive: a fetching job must
    /// still be running; a plan-only build is dropped once the job has a plan or runs (its own
    /// build then takes over).
    func planWanted(_ job: DownloadJob, fetch: Bool) -> Bool {
        fetch ? job.state == .running : job.plan == nil && !job.state.holdsSlot
    }

    /// `master` is the stored multivariant playlist `playlist` was read from, kept with the plan
    /// for `playableOffline`.
    private func loadMedia(_ job: DownloadJob, playlist: MultivariantPlaylist?, master: HLSPlaylist? = nil,
                           selection: [SelectedRendition], fetch: Bool) {
        var loaded: [UpstreamURL: HLSPlaylist] = [:]
        var pending = 0
        var failure: String?
        var retryAfter: Double?
        let urls = selection.compactMap { URIReference.resolve($0.uri, against: job.url) }
        var planned = false
        func finished() {
            // Stored playlists answer at once, inside the loop below: the plan is built once.
            guard pending == 0, !planned, planWanted(job, fetch: fetch) else { return }
            planned = true
            job.resolving.removeAll()
            if let failure { return fetch ? planFailed(job, failure, retryAfter: retryAfter) : () }
            job.planFailures = 0
            // Live playlists become recordings here, on the loop that owns them; the others are
            // parsed with the plan, off it.
            let vod = loaded.filter { u, p in
                if job.recordings[u] != nil { return false }
                if case .live = p.kind { return false }
                return true
            }
            let recorded = mediaForPlan(job, loaded: loaded.filter { vod[$0.key] == nil })
            job.planGeneration += 1
            let generation = job.planGeneration
            let url = job.url
            buildOffLoop({ () -> (DownloadPlan, [UpstreamURL: MediaPlaylist]) in
                var media = recorded
                for (u, p) in vod { media[u] = MediaPlaylist(p) }
                return (DownloadPlan.build(url: url, playlist: playlist, selection: selection, media: media), media)
            }) { [weak self] plan, media in
                guard let self, job.planGeneration == generation, self.planWanted(job, fetch: fetch) else { return }
                job.planInputs = (playlist, selection, media.filter { job.recordings[$0.key] == nil })
                self.storedBytes(plan.units, pin: job.state.holdsPins) { [weak self] stored in
                    guard let self, job.planGeneration == generation, self.planWanted(job, fetch: fetch) else { return }
                    self.adoptPlan(job, plan, master: master, stored: stored, fetch: fetch)
                }
            }
        }
        pending = urls.count
        for u in urls {
            guard case let .allow(checkAddress) = resolver.gate.check(u) else {
                pending -= 1
                failure = failure ?? "\(u.pathAndQuery): refused by the upstream gate"
                continue
            }
            loadPlaylist(u, checkAddress: checkAddress, job: job, refresh: fetch ? .staleLive : .never) { result in
                pending -= 1
                switch result {
                case let .success(p): loaded[u] = p
                case let .failure(e):
                    if failure == nil { (failure, retryAfter) = (e.description, e.retryAfter) }
                }
                finished()
            }
        }
        finished()
    }

    /// Runs `work` (a plan's build: pure, over values) on a thread of the system's pool, then
    /// `done` with its result on the main loop. A plan of tens of thousands of segments took a
    /// third of a second to parse and build, and on the main loop it held every admin request and
    /// every response there meanwhile (issue 59).
    func buildOffLoop<T>(_ work: @escaping () -> T, then done: @escaping (T) -> Void) {
        let mailbox = homes.all[0].mailbox
        DispatchQueue.global().async {
            let result = work()
            _ = mailbox.post { done(result) }
        }
    }

    /// Takes a plan once its homes said which units the cache holds, then starts fetching.
    func adoptPlan(_ job: DownloadJob, _ plan: DownloadPlan, master: HLSPlaylist?, stored: [String: Int], fetch: Bool) {
        job.adopt(plan, stored: stored)
        if let master { job.storedMaster = (master, job.completeRenditions()) }
        logger.info("download planned", metadata: ["id": "\(job.id)", "renditions": "\(plan.renditions.count)",
                                                   "units": "\(plan.units.count)", "stored": "\(job.units.storedCount)"])
        changed(job)
        guard fetch else { return }
        if let why = spaceShortfall(job) {
            perform(job.machine.noSpace(why), job)
            changed(job)
            return schedule() // its slot is free
        }
        pump(job)
        keepRecording(job, after: reloadDelay(job, grew: true))
    }

    /// A playlist could not be had: counted like a segment's failure (retried with backoff).
    func planFailed(_ job: DownloadJob, _ reason: String, retryAfter: Double? = nil) {
        job.resolving.removeAll()
        job.planFailures += 1
        perform(job.machine.segmentFailed("playlist", reason: reason, consecutive: job.planFailures, retryAfter: retryAfter,
                                          now: EventLoop.monotonic(), jitter: Double.random(in: 0..<1)), job)
        changed(job)
    }
}
