import EddyCache
import EddyCore
import EddyLoop

/// `GET /api/downloads/{id}/file?url=U`: the stored bytes of one of the job's resources, for
/// `eddy download export`. Whole (200) when the resource is stored whole, or one `Range:
/// bytes=a-b` (206) held whole. Sent with sendfile from the cache's file, so a large single-file
/// rendition costs no memory. Never fetches: what is not stored is a 409.
struct DownloadFileResponder {
    let api: DownloadAPI
    var engine: DownloadEngine { api.engine }
    let job: DownloadJob
    let request: ServerRequest
    let url: String?

    func respond() {
        guard let url, let plan = job.plan, plan.units.contains(where: { $0.url.description == url }) else {
            return fail(404, "url= must name a resource of download \(job.id)")
        }
        let cache = engine.cache
        guard let r = cache.lookup(url, now: engine.loop.wallClock()), let len = r.meta.length, len > 0 else {
            return fail(409, "\(url) is not stored")
        }
        var range = 0..<len
        var status = 200
        var h = HTTPHeaders()
        // A Range eddy does not understand (another unit, bad syntax) is ignored: the whole file
        // (RFC 9110 section 14.2).
        if let value = request.headers["Range"], case let .bytes(specs)? = RangeHeader.parse(value) {
            guard specs.count == 1, let span = specs[0].resolve(length: len) else {
                return fail(416, "one byte range within 0-\(len - 1) is served")
            }
            range = span.range
            status = 206
            h.set("Content-Range", "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(len)")
        }
        guard r.confirmed.contains(range), cache.verify(r, range) else { return fail(409, "\(url) is not stored whole in \(range)") }
        h.set("Content-Type", "application/octet-stream")
        h.set("Content-Length", "\(range.count)")
        h.set("Cache-Control", "no-store")
        request.start(status: status, headers: h)
        request.writeFile(cache.span(r, range))
        request.end()
    }

    private func fail(_ status: Int, _ message: String) {
        api.error(request, status, message)
    }
}
