import EddyCache
import EddyCore
import EddyResources

/// A download's title and artwork, shown like the iOS Settings list of downloads: the artwork is
/// a `data:` URI (the CLI reads a file into one) or a URL fetched through the upstream gate and
/// the cache like any other fetch, kept in the job database, served at
/// `GET /api/downloads/{id}/artwork`.
extension DownloadEngine {
    /// The artwork `spec` names, checked (PNG or JPEG, at most 1 MiB); nil when it names none.
    func loadArtwork(_ spec: DownloadSpec, done: @escaping (Result<Artwork?, DownloadInputError>) -> Void) {
        guard let text = spec.artwork, !text.isEmpty else { return done(.success(nil)) }
        if text.hasPrefix("data:") {
            guard let bytes = Artwork.dataURI(text) else { return done(.failure(DownloadInputError("artwork: a data: URI must be base64"))) }
            return done(Artwork.check(bytes).map { $0 })
        }
        let url: UpstreamURL, checkAddress: Bool
        switch target(for: text) {
        case let .success(t): (url, checkAddress) = t
        case let .failure(e): return done(.failure(DownloadInputError("artwork: \(e.description)")))
        }
        // At most a block past the limit is fetched, whatever the origin holds there.
        let key = resolver.cacheKey(url)
        HomeFetch(homes: homes, url: url, key: key, checkAddress: checkAddress, range: 0..<Artwork.maxBytes + 1) { [weak self] outcome in
            guard let self else { return }
            switch outcome {
            case let .failed(reason, status, retryAfter):
                done(.failure(DownloadEngine.inputError(url, "artwork: " + reason, status: status, retryAfter: retryAfter)))
            case let .stored(s):
                guard let length = s.length, length <= Artwork.maxBytes else {
                    return done(.failure(DownloadInputError("artwork: \(s.length.map { "\($0) bytes" } ?? "no length"); at most 1 MiB")))
                }
                homes.ask(onHomeOf: key, { h -> [UInt8]? in
                    h.store.lookup(key, now: h.loop.wallClock()).flatMap { h.store.read($0, 0..<length) }
                }, then: { bytes in
                    guard let bytes else { return done(.failure(DownloadInputError("artwork: \(url) could not be read", status: 502))) }
                    done(Artwork.check(bytes).map { $0 })
                })
            }
        }.start()
    }

    /// The job's artwork, read from the job database; nil when it has none.
    package func artwork(of job: DownloadJob) -> Artwork? {
        guard job.hasArtwork else { return nil }
        return try? database?.artwork(job: job.id)
    }

    func keep(_ art: Artwork, for job: DownloadJob) {
        do {
            try database?.saveArtwork(job: job.id, art)
            job.hasArtwork = true
        } catch {
            logger.error("cannot save a download's artwork", metadata: ["id": "\(job.id)", "error": "\(error)"])
        }
    }
}
