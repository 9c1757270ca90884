import EddyCore
import EddyDownloads
import EddyLoop
import EddyServing

/// A download's offline URL: `/_eddy/offline/{id}/` on the proxy listener, reported as the job's
/// `offline_url` (AVAssetDownloadTask's download location, served over HTTP). The asset is laid
/// out as `eddy download export` writes it (`ExportLayout`: relative URIs, paths kept under the
/// master's directory, others under `_ext/HOST/`), with only the renditions held whole, and it
/// never touches the network: what is not stored is a 404 or a 409, at once.
///
/// The prefix is reserved: a mapped origin's path under it is not reachable through eddy.
struct OfflineResponder {
    static let prefix = DownloadEngine.offlinePrefix
    let engine: DownloadEngine
    let request: any ClientRequest

    /// Answers the request (on the main loop, where the engine runs); `done` gets what to log once
    /// the answer has gone out or started.
    func respond(done: @escaping (ExchangeOutcome) -> Void) {
        var status = CacheStatus(forward: nil)
        status.detail = "offline"
        let outcome = ExchangeOutcome(cacheStatus: status, fromCache: 0, fromOrigin: 0, startedAt: EventLoop.monotonic())
        guard request.method == "GET" || request.method == "HEAD" else {
            var allow = HTTPHeaders()
            allow.set("Allow", "GET, HEAD")
            request.sendError(405, "an offline URL is read with GET or HEAD", extra: allow, close: false)
            return done(outcome)
        }
        var rest = request.uri.dropFirst(OfflineResponder.prefix.count)
        if let q = rest.firstIndex(of: "?") { rest = rest[..<q] }
        let parts = rest.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, let job = engine.job(String(parts[0])) else {
            return done(failed(404, "no download \(parts.first ?? "")", outcome))
        }
        // The files are asked of their homes; the answer goes out when they have answered.
        engine.offlineFiles(job) { [self] files in serve(files, job: job, name: String(parts[1]), status: status) { done(outcome) } }
    }

    private func serve(_ files: [String: ExportFile]?, job: DownloadJob, name: String, status: CacheStatus, then: @escaping () -> Void) {
        guard let files else {
            request.sendError(404, "download \(job.id) holds nothing whole yet", extra: HTTPHeaders(), close: false)
            return then()
        }
        guard let file = files[name] else {
            request.sendError(404, "download \(job.id) holds no \(name)", extra: HTTPHeaders(), close: false)
            return then()
        }
        var extra = HTTPHeaders()
        extra.set("Cache-Status", status.description)
        if let text = file.text {
            var h = HTTPHeaders()
            h.set("Content-Type", OfflineResponder.mediaType(file.path))
            h.set("Cache-Control", "no-store")
            request.send(status: 200, headers: h, extra: extra, body: request.method == "HEAD" ? [] : Array(text.utf8))
            return then()
        }
        var responder = DownloadFileResponder(engine: engine, job: job, request: request, url: file.url) { [request] s, m in
            request.sendError(s, m, extra: HTTPHeaders(), close: false)
        }
        responder.contentType = OfflineResponder.mediaType(file.path)
        responder.extra = extra
        responder.then = then
        responder.respond()
    }

    private func failed(_ status: Int, _ message: String, _ outcome: ExchangeOutcome) -> ExchangeOutcome {
        request.sendError(status, message, extra: HTTPHeaders(), close: false)
        return outcome
    }

    /// The media type of an exported file, by its extension (players such as ffmpeg also go by it).
    static func mediaType(_ path: String) -> String {
        switch path.split(separator: ".").last.map({ $0.lowercased() }) {
        case "m3u8", "m3u": return "application/vnd.apple.mpegurl"
        case "ts": return "video/mp2t"
        case "m4s", "mp4", "m4v", "cmfv": return "video/mp4"
        case "m4a", "cmfa": return "audio/mp4"
        case "aac": return "audio/aac"
        case "vtt", "webvtt": return "text/vtt"
        default: return "application/octet-stream"
        }
    }
}
