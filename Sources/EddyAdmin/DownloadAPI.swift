import EddyCore
import EddyDASH
import EddyDownloads
import EddyHLS
import EddyLoop
import Foundation

/// The downloads' JSON API on the admin listener (paths fixed by issue 12; scripts rely on them):
/// `POST/GET /api/downloads`, `GET /api/downloads/{id}`, `POST .../pause`, `POST .../resume`, `POST .../verify`,
/// `DELETE /api/downloads/{id}`, `PATCH /api/downloads/{id}` (add renditions), `GET .../events`
/// (server-sent events), `GET .../log`, `GET .../export` (what `eddy download export` writes),
/// `GET /api/variants?url=`. Errors are a status and `{"error": "one line"}`.
package final class DownloadAPI {
    package let engine: DownloadEngine

    package init(engine: DownloadEngine) { self.engine = engine }

    /// Answers `request` when its path is under /api/; false otherwise.
    package func handle(_ request: ServerRequest) -> Bool {
        let (path, query) = DownloadAPI.split(request.uri)
        let parts = path.split(separator: "/").map(String.init)
        guard parts.first == "api", parts.count >= 2, let allow = DownloadAPI.allowed(Array(parts.dropFirst())) else { return false }
        // HEAD is GET without the body (AdminJSON leaves it out); not on a stream.
        let isStream = parts.last == "events"
        let method = request.method == "HEAD" && !isStream ? "GET" : request.method
        guard allow.contains(method) else {
            AdminJSON.methodNotAllowed(request, allow: allow, stream: isStream)
            return true
        }
        switch (method, Array(parts.dropFirst())) {
        case ("POST", ["downloads"]): add(request)
        case ("GET", ["downloads"]): send(request, 200, engine.jobs.map { engine.info($0) })
        case ("GET", ["variants"]): variants(request, query["url"])
        case let (method, list) where list.count >= 2 && list[0] == "downloads":
            guard let job = engine.job(list[1]) else {
                // DELETE is idempotent (RFC 9110 section 9.2.2): deleting again answers as the first time did.
                if method == "DELETE" && list.count == 2 && engine.removedIDs.contains(list[1]) {
                    send(request, 200, ["id": list[1], "state": DownloadState.cancelled.rawValue])
                } else {
                    error(request, 404, "no download \(list[1])")
                }
                return true
            }
            switch (method, Array(list.dropFirst(2))) {
            case ("GET", []): send(request, 200, engine.info(job))
            case ("DELETE", []):
                // Answered once its pins are gone: what the API shows next no longer counts them.
                engine.remove(job) { [self] in send(request, 200, engine.info(job)) }
            case ("PATCH", []): extend(request, job)
            case ("GET", ["export"]):
                engine.exportFiles(job) { [self] result in
                    switch result {
                    case let .success(files): send(request, 200, ["id": LogValue.text(job.id), "files": .files(files)])
                    case let .failure(e): error(request, e.status, e.description)
                    }
                }
            case ("GET", ["file"]):
                DownloadFileResponder(engine: engine, job: job, request: request, url: query["url"]) { [self] in error(request, $0, $1) }.respond()
            case ("POST", ["pause"]):
                engine.pause(job)
                send(request, 200, engine.info(job))
            case ("POST", ["resume"]):
                engine.resume(job)
                send(request, 200, engine.info(job))
            case ("POST", ["refresh"]):
                engine.refresh(job) { [self] result in
                    switch result {
                    case let .success(report): send(request, 200, report)
                    case let .failure(e): error(request, e.status, e.description)
                    }
                }
            case ("POST", ["verify"]):
                engine.verify(job) { [self] report in
                    if let report { send(request, 200, report) } else { error(request, 409, "download \(job.id) has no plan yet") }
                }
            case ("GET", ["artwork"]):
                guard let art = engine.artwork(of: job) else {
                    // The download is there; it has no image (404 would say it is not).
                    request.send(status: 204, headers: HTTPHeaders())
                    break
                }
                var h = HTTPHeaders()
                h.set("Content-Type", art.type)
                h.set("X-Content-Type-Options", "nosniff")
                h.set("Cache-Control", "no-store")
                if request.method == "HEAD" { h.set("Content-Length", "\(art.bytes.count)") }
                request.send(status: 200, headers: h, body: request.method == "HEAD" ? [] : art.bytes)
            case ("GET", ["log"]): send(request, 200, ["id": LogValue.text(job.id), "events": .events(job.log)])
            case ("GET", ["events"]): DownloadEvents(api: self, job: job, request: request).start()
            default: error(request, 404, "no API endpoint \(request.method) \(path)")
            }
        default: error(request, 404, "no API endpoint \(request.method) \(path)")
        }
        return true
    }

    /// The methods each path of this API allows (GET implies HEAD); nil for paths it does not have.
    static func allowed(_ parts: [String]) -> [String]? {
        switch parts.count {
        case 1 where parts[0] == "downloads": return ["GET", "POST"]
        case 1 where parts[0] == "variants": return ["GET"]
        case 2 where parts[0] == "downloads": return ["GET", "DELETE", "PATCH"]
        case 3 where parts[0] == "downloads":
            switch parts[2] {
            case "pause", "resume", "verify", "refresh": return ["POST"]
            case "export", "file", "log", "events", "artwork": return ["GET"]
            default: return nil
            }
        default: return nil
        }
    }

    private enum LogValue: Encodable {
        case text(String), events([[String: String]]), files([ExportFile])
        func encode(to encoder: any Encoder) throws {
            var c = encoder.singleValueContainer()
            switch self {
            case let .text(s): try c.encode(s)
            case let .events(e): try c.encode(e)
            case let .files(f): try c.encode(f)
            }
        }
    }

    private func add(_ request: ServerRequest) {
        let body = Data(request.body())
        if body.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) == UInt8(ascii: "[") {
            do { return addList(request, try JSONDecoder().decode([LenientSpec].self, from: body)) } catch {
                return self.error(request, 400, "the body must be a JSON list of objects like {\"url\": \"...\"}: \(DownloadAPI.brief(error))")
            }
        }
        let spec: DownloadSpec
        do { spec = try JSONDecoder().decode(DownloadSpec.self, from: body) } catch {
            return self.error(request, 400, "the body must be JSON like {\"url\": \"...\"}: \(DownloadAPI.brief(error))")
        }
        engine.add(spec) { [weak self] result in
            guard let self else { return }
            switch result {
            case let .success(job): send(request, 201, engine.info(job))
            case let .failure(e): self.error(request, e.status, e.description)
            }
        }
    }

    /// `{"audio": [...], "subtitles": [...], "rate": "2M"}`: renditions to add, and the job's own
    /// rate (`"0"` lifts it), changed live.
    private func extend(_ request: ServerRequest, _ job: DownloadJob) {
        struct Body: Decodable { var audio: [String]?; var subtitles: [String]?; var rate: String? }
        let body: Body
        do { body = try JSONDecoder().decode(Body.self, from: Data(request.body())) } catch {
            return self.error(request, 400, "the body must be JSON like {\"audio\": [\"de\"], \"subtitles\": [\"fr\"], \"rate\": \"2M\"}: \(DownloadAPI.brief(error))")
        }
        let renditions = !(body.audio ?? []).isEmpty || !(body.subtitles ?? []).isEmpty
        guard renditions || body.rate != nil else {
            return self.error(request, 400, "nothing to change: give \"audio\", \"subtitles\" or \"rate\"")
        }
        if renditions && job.kind == .file {
            return self.error(request, 400, "audio, subtitles: only for HLS downloads, and download \(job.id) is a file")
        }
        if let rate = body.rate {
            do { _ = try engine.checkedRate(job, rate) } catch { return self.error(request, error.status, error.description) }
        }
        // Checked above, so it can not fail; applied once the whole request succeeds.
        let applyRate = { [engine] in if let rate = body.rate { _ = try? engine.setRate(job, rate) } }
        guard renditions else {
            applyRate()
            return send(request, 200, engine.info(job))
        }
        engine.extend(job, audio: body.audio, subtitles: body.subtitles) { [weak self] result in
            guard let self else { return }
            switch result {
            case let .success(job):
                applyRate()
                send(request, 200, engine.info(job))
            case let .failure(e): self.error(request, e.status, e.description)
            }
        }
    }

    private func variants(_ request: ServerRequest, _ url: String?) {
        guard let url, !url.isEmpty else { return error(request, 400, "url= is required") }
        guard case let .success((target, checkAddress)) = engine.target(for: url) else {
            if case let .failure(e) = engine.target(for: url) { error(request, e.status, e.description) }
            return
        }
        if MPDSniffer.isMPDPath(target.pathAndQuery) {
            // DASH: the representations as the selection language sees them (`DashTracks`).
            return engine.loadMPD(target, checkAddress: checkAddress) { [weak self] result in
                switch result {
                case let .failure(e): self?.error(request, e.status, e.description)
                case let .success(tracks): self?.send(request, 200, VariantsReport(url: url, playlist: tracks.playlist, media: [:]))
                }
            }
        }
        engine.loadPlaylist(target, checkAddress: checkAddress) { [weak self] result in
            guard let self else { return }
            switch result {
            case let .failure(e): self.error(request, e.status, e.description)
            case let .success(p):
                guard case .multivariant = p.kind else { return self.error(request, 400, "\(url) is a media playlist, not a multivariant one") }
                let mv = MultivariantPlaylist(p)
                var media: [Int: MediaPlaylist] = [:]
                var pending = mv.variants.count
                let finish = { self.send(request, 200, VariantsReport(url: url, playlist: mv, media: media)) }
                if pending == 0 { return finish() }
                for v in mv.variants {
                    guard let u = URIReference.resolve(v.uri, against: target), case let .allow(check) = engine.resolver.gate.check(u) else {
                        pending -= 1
                        if pending == 0 { finish() }
                        continue
                    }
                    engine.loadPlaylist(u, checkAddress: check) { r in
                        if case let .success(m) = r { media[v.index] = MediaPlaylist(m) }
                        pending -= 1
                        if pending == 0 { finish() }
                    }
                }
            }
        }
    }

    func send<T: Encodable>(_ request: ServerRequest, _ status: Int, _ value: T) { AdminJSON.send(request, status, value) }

    func error(_ request: ServerRequest, _ status: Int, _ message: String) { AdminJSON.error(request, status, message) }

    /// The decoding error in a line (JSONDecoder's descriptions run long).
    static func brief(_ error: any Error) -> String {
        if case let DecodingError.keyNotFound(key, _) = error { return "missing \"\(key.stringValue)\"" }
        if case let DecodingError.typeMismatch(_, ctx) = error { return "wrong type at \(ctx.codingPath.map(\.stringValue).joined(separator: "."))" }
        return "not valid JSON"
    }

    /// The path and the decoded query parameters of a request-target.
    static func split(_ uri: String) -> (String, [String: String]) {
        guard let q = uri.firstIndex(of: "?") else { return (uri, [:]) }
        var params: [String: String] = [:]
        for pair in uri[uri.index(after: q)...].split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1)
            let decode = { (s: Substring) in s.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(s) }
            if let k = kv.first { params[decode(k)] = kv.count > 1 ? decode(kv[1]) : "" }
        }
        return (String(uri[..<q]), params)
    }
}
