import EddyCache
import EddyCore
import EddyLoop

/// `GET /api/downloads/{id}/file?url=U`: the stored bytes of one of the job's resources, for
/// `eddy download export`, and the data files of a download's offline URL (`OfflineResponder`).
/// Whole (200) when the resource is stored whole, or one `Range: bytes=a-b` (206) held whole.
/// Sent with sendfile from the cache's file, so a large single-file rendition costs no memory.
/// Never fetches: what is not stored is a 409.
package struct DownloadFileResponder {
    let engine: DownloadEngine
    let job: DownloadJob
    let request: any ClientRequest
    let url: String?
    /// The media type sent, and the extra fields (the offline URL says `Cache-Status`).
    package var contentType = "application/octet-stream"
    package var extra = HTTPHeaders()
    /// Answers a failure (the admin API in JSON, the proxy listener in text).
    let fail: (Int, String) -> Void
    /// Runs once the answer has gone out or started (the access log records it then).
    package var then: () -> Void = {}

    package init(engine: DownloadEngine, job: DownloadJob, request: any ClientRequest, url: String?,
                 fail: @escaping (Int, String) -> Void) {
        (self.engine, self.job, self.request, self.url, self.fail) = (engine, job, request, url, fail)
    }

    package func respond() {
        guard let url, let plan = job.plan, let unit = plan.units.first(where: { $0.url.description == url }) else {
            fail(404, "url= must name a resource of download \(job.id)")
            return then()
        }
        let key = engine.resolver.cacheKey(unit.url)
        // Read and checked on the resource's home; the file goes with a descriptor of its own,
        // which `writeFile` duplicates again before this returns.
        let rangeValue = request.headers["Range"]
        engine.homes.ask(onHomeOf: key, { h -> Found in
            guard let r = h.store.lookup(key, now: h.loop.wallClock()), let len = r.meta.length, len > 0 else { return .failed(409, "\(url) is not stored") }
            var range = 0..<len
            var ranged = false
            // A Range eddy does not understand (another unit, bad syntax) is ignored: the whole
            // file (RFC 9110 section 14.2).
            if let rangeValue, case let .bytes(specs)? = RangeHeader.parse(rangeValue) {
                guard specs.count == 1, let span = specs[0].resolve(length: len) else {
                    return .failed(416, "one byte range within 0-\(len - 1) is served")
                }
                range = span.range
                ranged = true
            }
            guard r.confirmed.contains(range), h.store.verify(r, range) else { return .failed(409, "\(url) is not stored whole in \(range)") }
            let span = h.store.span(r, range)
            guard let file = SharedDescriptor(duplicating: span.descriptor) else { return .failed(503, "out of file descriptors") }
            return .stored(Stored(file: file, offset: span.offset, range: range, length: len, ranged: ranged))
        }, then: { found in
            switch found {
            case let .failed(status, message): fail(status, message)
            case let .stored(s): send(s)
            }
            then()
        })
    }

    private func send(_ s: Stored) {
        let range = s.range
        var h = HTTPHeaders()
        if s.ranged { h.set("Content-Range", "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(s.length)") }
        h.set("Content-Type", contentType)
        h.set("Content-Length", "\(range.count)")
        h.set("Cache-Control", "no-store")
        h.set("Accept-Ranges", "bytes")
        for (n, v) in extra.fields { h.set(n, v) }
        request.start(status: s.ranged ? 206 : 200, headers: h, extra: HTTPHeaders())
        if request.method != "HEAD" { request.writeFile(FileSpan(descriptor: s.file.fd, offset: s.offset, length: range.count)) }
        request.end(whenSent: nil)
    }

    private struct Stored {
        let file: SharedDescriptor
        let offset: Int
        let range: Range<Int>
        let length: Int
        let ranged: Bool
    }

    private enum Found {
        case stored(Stored)
        case failed(Int, String)
    }
}
