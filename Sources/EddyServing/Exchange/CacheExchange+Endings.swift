import EddyCache
import EddyCore
import EddyLoop

/// How an exchange ends: a whole answer, an error, a cut, the client gone; and, once, `complete`,
/// which settles what was served from the cache and from the origin for the log and metrics.
extension CacheExchange {
    func finishWhole(status: Int, headers: HTTPHeaders, body: [UInt8] = []) {
        var h = headers
        h.set("Cache-Status", cacheStatus.description)
        if !body.isEmpty { h.set("Content-Type", "text/plain; charset=utf-8") }
        request.send(status: status, headers: h, body: body)
        complete()
    }

    func fail(_ status: Int, _ reason: String) {
        var h = HTTPHeaders()
        h.set("Via", services.upstream.via)
        h.set("Cache-Status", "\(services.name); fwd=\(cacheStatus.forward?.rawValue ?? "miss"); detail=\"\(reason.replacingAll("\"", "'"))\"")
        request.sendError(status, reason, extra: h)
        complete()
    }

    func abort(_ reason: String) {
        services.logger.warning("response cut short", metadata: ["url": "\(url)", "reason": "\(reason)", "sent": "\(bytesServed)"])
        if request.headSent { request.abort() } else { request.sendError(502, reason) }
        complete()
    }

    func clientGone() {
        guard !done else { return }
        request.end() // frees the detached request (libevent requires it)
        complete()
    }

    func complete() {
        guard machine.finish() else { return }
        direct?.cancel()
        direct = nil
        directRetry?.cancel()
        directRetry = nil
        // The ticket keeps protecting this response's bytes until they have left the output
        // buffer: file segments queued for sendfile read the data file when the socket takes
        // them, and a block evicted before that would go out as zeros (found by
        // test_max_size_holds_while_responses_use_everything).
        let held = ticket
        ticket = nil
        if request.headSent && !request.isFinished { request.end(whenSent: { held?.close() }) } else { held?.close() }
        request.onDrained = nil
        request.onClose = nil
        let fromCache = allFromCache ? bytesServed : bytesAtStart.isEmpty ? 0 : servedFromCache()
        services.finished(request, ExchangeOutcome(cacheStatus: cacheStatus, fromCache: fromCache, fromOrigin: Swift.max(0, bytesServed - fromCache),
                                                   startedAt: startedAt, cacheKey: key, upstreamHeadAt: upstreamHeadAt))
        if revalidateWhenDone, let held { revalidateInBackground(held.resource) }
    }

    func servedFromCache() -> Int {
        var total = 0
        for case let .resource(range) in pieces {
            let end = Swift.min(range.upperBound, range.lowerBound + bytesServed)
            if end > range.lowerBound { total += bytesAtStart.intersection(range.lowerBound..<end).count }
        }
        return Swift.min(total, bytesServed)
    }

    func releaseResource() {
        ticket?.close()
        ticket = nil
    }
}
