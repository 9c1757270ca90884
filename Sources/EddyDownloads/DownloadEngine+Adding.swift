import EddyCore
import EddyHLS

/// Adding a download: its URL through the gate, HLS or file, the selection checked, the artwork
/// loaded; then the job is made and scheduled. A 400-class error creates nothing.
extension DownloadEngine {
    /// The upstream URL a download's `url` names: an origin URL the gate allows, or an eddy URL
    /// (this listener's address with a mapped or URL-prefix path, or a path alone).
    package func target(for text: String) -> Result<(UpstreamURL, Bool), DownloadInputError> {
        var t = String(text.trimmingOWS())
        if let u = UpstreamURL.parse(Substring(t)) {
            if !selfAuthority.names(u) {
                // An origin URL: on a mapped origin or admitted by --allow-host (the gate's rule).
                switch resolver.gate.check(u) {
                case let .allow(checkAddress): return .success((u, checkAddress))
                case let .refuse(reason): return .failure(DownloadInputError("url: \(reason)"))
                }
            }
            t = u.pathAndQuery
        }
        switch resolver.resolve(t) {
        case let .upstream(url, _, checkAddress): return .success((url, checkAddress))
        case let .refused(_, reason): return .failure(DownloadInputError("url: \(reason)"))
        }
    }

    /// Validates `spec` against the asset (an HLS playlist is fetched and the selection made; any
    /// other file is probed) and creates the job; a 400-class error creates nothing.
    package func add(_ spec: DownloadSpec, done: @escaping (Result<DownloadJob, DownloadInputError>) -> Void) {
        let createdAt = loop.wallClock()
        do {
            _ = try spec.policy(createdAt: createdAt)
            _ = try spec.recordingLimit()
            _ = try spec.downloadWindow()
            _ = try spec.rateLimit()
        } catch { return done(.failure(error)) }
        let url: UpstreamURL, checkAddress: Bool
        switch target(for: spec.url) {
        case let .success(t): (url, checkAddress) = t
        case let .failure(e): return done(.failure(e))
        }
        classify(spec, url: url, checkAddress: checkAddress) { [weak self] result in
            guard let self else { return }
            switch result {
            case let .failure(e): done(.failure(e))
            case let .success(kind):
                loadArtwork(spec) { [weak self] art in
                    switch art {
                    case let .failure(e): done(.failure(e))
                    case let .success(art): self?.create(spec, url: url, checkAddress: checkAddress, kind: kind, artwork: art,
                                                         createdAt: createdAt, done: done)
                    }
                }
            }
        }
    }

    /// Makes the job `add` checked.
    private func create(_ spec: DownloadSpec, url: UpstreamURL, checkAddress: Bool, kind: DownloadKind, artwork: Artwork?, createdAt: Int,
                        done: (Result<DownloadJob, DownloadInputError>) -> Void) {
        let job = DownloadJob(id: DownloadEngine.newID(), spec: spec, url: url, checkAddress: checkAddress, kind: kind,
                              createdAt: createdAt, machine: DownloadJobStateMachine(retries: settings.retries),
                              concurrency: settings.concurrency)
        if let artwork { keep(artwork, for: job) }
        jobs.append(job)
        applyWindows() // outside its window it answers `scheduled`
        save(job)
        logger.info("download added", metadata: ["id": "\(job.id)", "url": "\(url)", "kind": "\(kind.rawValue)"])
        done(.success(job))
        schedule()
    }

    /// Checks `spec`'s configurations against the asset at `url` (its playlist fetched, the
    /// selection made); nil when a job could be made of them, else the error to answer.
    func checkSelection(_ spec: DownloadSpec, url: UpstreamURL, checkAddress: Bool, done: @escaping (DownloadInputError?) -> Void) {
        let configs: (primary: DownloadConfiguration, auxiliary: [DownloadConfiguration])
        do { configs = try spec.configurations() } catch { return done(error) }
        loadPlaylist(url, checkAddress: checkAddress) { [weak self] result in
            guard let self else { return }
            switch result {
            case let .failure(e): done(e)
            case let .success(p):
                guard case .multivariant = p.kind else { return done(nil) }
                do {
                    _ = try AssetSelector.select(MultivariantPlaylist(p), primary: configs.primary, auxiliary: configs.auxiliary, locale: locale)
                    done(nil)
                } catch {
                    done(DownloadInputError("\(error)"))
                }
            }
        }
    }
}
