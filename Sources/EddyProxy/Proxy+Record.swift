import EddyCore
import EddyLoop
import EddyServing

extension Proxy {
    /// Writes the access log line of an answered request (counted already, on its loop). Main loop.
    func log(_ request: AnsweredRequest, _ outcome: ExchangeOutcome) {
        guard accessLog.isEnabled else { return }
        let startedAt = outcome.startedAt
        accessLog.record(peer: request.peer, method: request.method, uri: request.uri, version: request.version,
                         status: request.status, bytes: request.bodyBytes, referer: request.referer,
                         userAgent: request.userAgent, cacheStatus: outcome.cacheStatus.logWord,
                         fromCache: outcome.fromCache, fromOrigin: outcome.fromOrigin,
                         durationMs: (EventLoop.monotonic() - startedAt) * 1000, now: loop.wallClock(),
                         cacheKey: outcome.cacheKey, upstreamMs: outcome.upstreamHeadAt.map { ($0 - startedAt) * 1000 })
    }
}
