import EddyCore
import EddyLoop

extension Proxy {
    /// Counts an answered request's cache result in `metrics` (its loop's own) and in the shared
    /// per-minute windows and first-byte histograms. On the loop that finished it, before its
    /// client can ask `/metrics` about it.
    static func count(_ request: AnsweredRequest, _ outcome: ExchangeOutcome, in metrics: Metrics, stats: RequestStats, now: Int) {
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
            stats.record(kind: kind, now: now, bytesServed: fromCache + fromOrigin, bytesFromCache: fromCache,
                         firstByte: request.headSentAt.map { $0 - startedAt })
        }
    }

    /// Counts a hit answered from `HitSnapshots` (on any loop) in its loop's `metrics`.
    static func countSnapshotHit(_ outcome: ExchangeOutcome, in metrics: Metrics) {
        metrics.requests += 1
        if outcome.fromMemory { metrics.memoryHits += 1 }
        metrics.snapshotHits += 1 // eddy_snapshot_hits_total: answered without an exchange
    }

    /// Counts a request answered on the main loop and writes its access log line.
    func record(_ request: AnsweredRequest, _ outcome: ExchangeOutcome) {
        Proxy.count(request, outcome, in: metrics, stats: requestStats, now: loop.wallClock())
        log(request, outcome)
    }

    /// Writes the access log line of an answered request (counted already, on its loop).
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

    /// A hit answered from `HitSnapshots` on the main loop: what is done for every hit besides
    /// sending it (counts and the access log; the resource's last access and the HLS prefetch a
    /// segment request starts, on the resource's home). A worker does the same for its own.
    func snapshotHitAnswered(_ request: AnsweredRequest, _ outcome: ExchangeOutcome) {
        Proxy.countSnapshotHit(outcome, in: metrics)
        if let key = outcome.cacheKey, touches.due(key, now: loop.wallClock(), prefetching: playlists.directory.hasSegments) {
            homes.run(onHomeOf: key) { $0.snapshotHit(key: key) }
        }
        record(request, outcome)
    }
}
