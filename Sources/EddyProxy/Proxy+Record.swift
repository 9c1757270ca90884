import EddyCore
import EddyLoop

extension Proxy {
    /// Counts an answered request in the metrics and writes its access log line.
    func record(_ request: AnsweredRequest, _ outcome: ExchangeOutcome) {
        let (cacheStatus, fromCache, fromOrigin, startedAt) = (outcome.cacheStatus, outcome.fromCache, outcome.fromOrigin, outcome.startedAt)
        metrics.bytesFromCache += fromCache
        let kind: String?
        switch cacheStatus.forward {
        case nil: metrics.hits += 1; kind = "hit"
        case .miss?, .uriMiss?: metrics.misses += 1; kind = "miss"
        case .partial?, .stale?: metrics.partials += 1; kind = "partial"
        default: kind = nil
        }
        if let kind {
            metrics.rolling.record(now: loop.wallClock(), hit: kind == "hit", bytesServed: fromCache + fromOrigin, bytesFromCache: fromCache)
            if let at = request.headSentAt { metrics.firstByte[kind]?.observe(at - startedAt) }
        }
        guard accessLog.isEnabled else { return }
        accessLog.record(peer: request.peer, method: request.method, uri: request.uri, version: request.version,
                         status: request.status, bytes: request.bodyBytes, referer: request.referer,
                         userAgent: request.userAgent, cacheStatus: cacheStatus.logWord,
                         fromCache: fromCache, fromOrigin: fromOrigin,
                         durationMs: (EventLoop.monotonic() - startedAt) * 1000, now: loop.wallClock(),
                         cacheKey: outcome.cacheKey, upstreamMs: outcome.upstreamHeadAt.map { ($0 - startedAt) * 1000 })
    }

    /// A hit answered from `HitSnapshots` (by a worker, reported home, or here): what the home
    /// loop does for every hit besides sending it (counts, access log, the resource's last access, and the HLS
    /// prefetch a segment request starts).
    func snapshotHitAnswered(_ request: AnsweredRequest, _ outcome: ExchangeOutcome) {
        metrics.requests += 1
        if outcome.fromMemory { metrics.memoryHits += 1 }
        metrics.snapshotHits += 1 // eddy_snapshot_hits_total: answered without an exchange
        if let key = outcome.cacheKey {
            playlists.prefetch(after: key)
            if let r = store.lookup(key, now: loop.wallClock()) { store.touch(r, now: loop.wallClock()) }
        }
        record(request, outcome)
    }
}
