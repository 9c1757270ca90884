import EddyCache
import EddyCore
import EddyHLS

/// A downloaded asset as a self-contained HLS folder (`eddy download export`): the playlists,
/// cut down to the renditions held whole and rewritten to relative URIs (`ExportLayout`), and the
/// data files they name, read by the CLI through the admin API.
extension DownloadEngine {
    /// The files of the export, the root playlist first; a 409 when nothing is held whole yet.
    /// The stored playlists and the held lengths are asked of their homes; `done` runs on the
    /// main loop once they have answered.
    package func exportFiles(_ job: DownloadJob, then done: @escaping (Result<[ExportFile], DownloadInputError>) -> Void) {
        guard let plan = job.plan else { return done(.failure(DownloadInputError("download \(job.id) has no plan yet", status: 409))) }
        format(of: job.kind).exportFiles(job, plan: plan, then: done)
    }

    /// The export of an HLS job (see `exportFiles`).
    func exportHLS(_ job: DownloadJob, plan: DownloadPlan, then done: @escaping (Result<[ExportFile], DownloadInputError>) -> Void) {
        let complete = job.completeRenditions()
        // Each complete rendition's URL once; a live one exports as its recording (the whole of it, as VOD).
        var order: [UpstreamURL] = []
        for i in complete.sorted() where !order.contains(plan.renditions[i].url) { order.append(plan.renditions[i].url) }
        let toRead = order.filter { job.recordings[$0] == nil } + (plan.isMultivariant ? [job.url] : [])
        storedPlaylists(toRead) { [self] stored in
            var media: [(UpstreamURL, HLSPlaylist)] = []
            for u in order {
                if let recording = job.recordings[u] { media.append((u, HLSPlaylist(recording.text))) } else if let p = stored[u] { media.append((u, p)) }
            }
            guard !media.isEmpty else {
                return done(.failure(DownloadInputError("download \(job.id) holds no rendition whole yet", status: 409)))
            }
            var layout = ExportLayout(root: job.url)
            var files: [ExportFile] = []
            let playlistURLs = Set(media.map(\.0))
            if plan.isMultivariant {
                guard let p = stored[job.url] else {
                    return done(.failure(DownloadInputError("the multivariant playlist of \(job.id) is not stored", status: 409)))
                }
                let held = Set(playlistURLs.map(\.description))
                let cut = OfflineMultivariant.filter(p) { uri in
                    URIReference.resolve(uri, against: job.url).map { held.contains($0.description) } ?? false
                }
                let text = layout.rewrite(cut, at: job.url, exported: { playlistURLs.contains($0) })
                files.append(ExportFile(path: layout.path(for: job.url), text: text))
            }
            // Data: what the playlists name, each file once, with the byte ranges they use.
            let wanted = ExportData(media: media.map { ($0.0, MediaPlaylist($0.1)) }).files
            heldLengths(wanted) { lengths in
                var data: [ExportFile] = []
                for f in wanted {
                    guard let len = lengths[f.url] else { continue }
                    let ranges = f.ranges.map { $0.map { $0.clamped(to: 0..<len) } }
                    data.append(ExportFile(path: layout.path(for: f.url), url: f.url.description, length: len,
                                           ranges: ranges.map { $0.map { [$0.lowerBound, $0.upperBound] } }, key: f.isKey ? true : nil))
                }
                let exported = Set(data.compactMap(\.url))
                for (u, p) in media {
                    files.append(ExportFile(path: layout.path(for: u), text: layout.rewrite(p, at: u, exported: { exported.contains($0.description) })))
                }
                done(.success(files + data))
            }
        }
    }

    /// A file download's export: the file itself, once held whole.
    func exportFile(_ job: DownloadJob, then done: @escaping (Result<[ExportFile], DownloadInputError>) -> Void) {
        guard job.allStored || job.staging else { return done(.failure(DownloadInputError("download \(job.id) is not held whole yet", status: 409))) }
        var layout = ExportLayout(root: job.url)
        let path = layout.path(for: job.url)
        let key = resolver.cacheKey(job.url)
        homes.ask(onHomeOf: key, { h -> Int? in
            guard let r = h.store.lookup(key, now: h.loop.wallClock()), let len = r.meta.length,
                  r.confirmed.contains(0..<len) else { return nil }
            return len
        }, then: { length in
            guard let length else { return done(.failure(DownloadInputError("the file of \(job.id) is no longer held whole", status: 409))) }
            done(.success([ExportFile(path: path, url: job.url.description, length: length)]))
        })
    }

    /// The files of the job's offline URL by path (see `OfflineResponder`): the export's, kept
    /// until the job changes; nil while nothing is held whole.
    package func offlineFiles(_ job: DownloadJob, then done: @escaping ([String: ExportFile]?) -> Void) {
        if let files = job.offlineFiles { return done(files) }
        exportFiles(job) { result in
            guard case let .success(list) = result else { return done(nil) }
            let files = Dictionary(list.map { ($0.path, $0) }) { first, _ in first }
            job.offlineFiles = files
            done(files)
        }
    }

    /// Where the proxy listener answers downloads' offline URLs (`OfflineResponder`); reserved.
    package static let offlinePrefix = "/_eddy/offline/"

    /// The job's offline URL on the proxy listener (a wildcard listen address is reached on loopback).
    package func offlineURL(_ job: DownloadJob) -> String { format(of: job.kind).offlineURL(job) }

    /// The offline URL of an HLS or file job: its export's root under `offlinePrefix`.
    func exportOfflineURL(_ job: DownloadJob) -> String {
        var layout = ExportLayout(root: job.url)
        return "\(selfAuthority.baseURL())\(DownloadEngine.offlinePrefix)\(job.id)/\(layout.path(for: job.url))"
    }

    /// The stored playlist at `url`, read on its home, then handed to `done` on the main loop;
    /// nil when it is not stored whole.
    func storedPlaylist(_ url: UpstreamURL, then done: @escaping (HLSPlaylist?) -> Void) {
        let key = resolver.cacheKey(url)
        homes.ask(onHomeOf: key, { h in
            h.store.lookup(key, now: h.loop.wallClock()).flatMap { h.playlists.readPlaylist($0) }
        }, then: done)
    }

    /// The stored playlists at `urls` (those stored whole), read on their homes, each home asked once.
    func storedPlaylists(_ urls: [UpstreamURL], then done: @escaping ([UpstreamURL: HLSPlaylist]) -> Void) {
        let resolver = self.resolver
        homes.ask(urls, by: resolver.cacheKey, { h, mine in
            let now = h.loop.wallClock()
            return mine.compactMap { u in h.store.lookup(resolver.cacheKey(u), now: now).flatMap { h.playlists.readPlaylist($0) }.map { (u, $0) } }
        }, then: { done(Dictionary($0) { first, _ in first }) })
    }

    /// The length of each wanted file whose wanted ranges (all of it for nil) are stored whole,
    /// asked of each home once.
    private func heldLengths(_ wanted: [ExportData.File], then done: @escaping ([UpstreamURL: Int]) -> Void) {
        let resolver = self.resolver
        homes.ask(wanted, by: { resolver.cacheKey($0.url) }, { h, mine in
            let now = h.loop.wallClock()
            return mine.compactMap { f -> (UpstreamURL, Int)? in
                guard let r = h.store.lookup(resolver.cacheKey(f.url), now: now), let len = r.meta.length else { return nil }
                let have = f.ranges.map { $0.map { $0.clamped(to: 0..<len) } } ?? [0..<len]
                return have.allSatisfy({ r.confirmed.contains($0) }) ? (f.url, len) : nil
            }
        }, then: { done(Dictionary($0) { first, _ in first }) })
    }
}
