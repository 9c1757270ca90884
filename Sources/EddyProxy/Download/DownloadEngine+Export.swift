import EddyCache
import EddyCore
import EddyHLS

/// A downloaded asset as a self-contained HLS folder (`eddy download export`): the playlists,
/// cut down to the renditions held whole and rewritten to relative URIs (`ExportLayout`), and the
/// data files they name, read by the CLI through the admin API.
extension DownloadEngine {
    /// The files of the export, the root playlist first; a 409 when nothing is held whole yet.
    func exportFiles(_ job: DownloadJob) -> Result<[ExportFile], DownloadInputError> {
        guard let plan = job.plan else { return .failure(DownloadInputError("download \(job.id) has no plan yet", status: 409)) }
        let complete = job.completeRenditions()
        // Each complete rendition's stored playlist, once per URL.
        var media: [(UpstreamURL, HLSPlaylist)] = []
        for i in complete.sorted() where !media.contains(where: { $0.0 == plan.renditions[i].url }) {
            let u = plan.renditions[i].url
            // A live rendition exports as its recording: the whole of it, as VOD.
            if let recording = job.recordings[u] {
                media.append((u, HLSPlaylist(recording.text)))
                continue
            }
            guard let p = storedPlaylist(u) else { continue }
            media.append((u, p))
        }
        guard !media.isEmpty else {
            return .failure(DownloadInputError("download \(job.id) holds no rendition whole yet", status: 409))
        }
        var layout = ExportLayout(root: job.url)
        var files: [ExportFile] = []
        let playlistURLs = Set(media.map(\.0))
        if plan.isMultivariant {
            guard let p = storedPlaylist(job.url) else {
                return .failure(DownloadInputError("the multivariant playlist of \(job.id) is not stored", status: 409))
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
        let lengths = heldLengths(wanted)
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
        return .success(files + data)
    }

    /// The files of the job's offline URL by path (see `OfflineResponder`): the export's, kept
    /// until the job changes; nil while nothing is held whole.
    func offlineFiles(_ job: DownloadJob) -> [String: ExportFile]? {
        if let files = job.offlineFiles { return files }
        guard case let .success(list) = exportFiles(job) else { return nil }
        let files = Dictionary(list.map { ($0.path, $0) }) { first, _ in first }
        job.offlineFiles = files
        return files
    }

    /// The job's offline URL on the proxy listener (a wildcard listen address is reached on loopback).
    func offlineURL(_ job: DownloadJob) -> String {
        var layout = ExportLayout(root: job.url)
        let host = ["0.0.0.0", "::", ""].contains(selfAuthority.host) ? "127.0.0.1" : selfAuthority.host
        let authority = host.contains(":") ? "[\(host)]:\(selfAuthority.port)" : "\(host):\(selfAuthority.port)"
        return "http://\(authority)\(OfflineResponder.prefix)\(job.id)/\(layout.path(for: job.url))"
    }

    /// The stored playlist at `url`, read on its home; nil when it is not stored whole.
    func storedPlaylist(_ url: UpstreamURL) -> HLSPlaylist? {
        homes.sync(onHomeOf: url.description) { h in
            h.store.lookup(url.description, now: h.loop.wallClock()).flatMap { h.playlists.readPlaylist($0) }
        }
    }

    /// The length of each wanted file whose wanted ranges (all of it for nil) are stored whole,
    /// asked of each home once.
    private func heldLengths(_ wanted: [ExportData.File]) -> [UpstreamURL: Int] {
        let found = homes.sync(wanted, by: \.url.description) { h, mine in
            let now = h.loop.wallClock()
            return mine.compactMap { f -> (UpstreamURL, Int)? in
                guard let r = h.store.lookup(f.url.description, now: now), let len = r.meta.length else { return nil }
                let have = f.ranges.map { $0.map { $0.clamped(to: 0..<len) } } ?? [0..<len]
                return have.allSatisfy({ r.confirmed.contains($0) }) ? (f.url, len) : nil
            }
        }
        return Dictionary(found) { first, _ in first }
    }
}
