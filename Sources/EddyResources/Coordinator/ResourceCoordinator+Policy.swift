import EddyCache
import EddyCore
import EddyHLS
import EddyLoop

/// Freshness and stored response headers, computed by EddyCore's pure policy and cached per
/// (version, refresh): a hit pays neither the date parsing nor the header composition.
extension ResourceCoordinator {
    /// The stored response's freshness (RFC 9111 section 4.2) under `policy`.
    package func freshness(_ policy: FreshnessPolicy) -> Freshness {
        let r = resource
        if let c = freshnessCache, c.version == r.version, c.storedAt == r.meta.storedAt { return c.freshness }
        let f = Freshness.compute(headers: r.meta.headers.appending(validatorFields), status: r.meta.status, responseTime: r.meta.storedAt, policy: policy)
        freshnessCache = (r.version, r.meta.storedAt, f)
        return f
    }

    /// Last-Modified is kept apart from the replayed headers; the heuristic needs it.
    private var validatorFields: HTTPHeaders {
        var h = HTTPHeaders()
        if let lm = resource.meta.lastModified { h.add("Last-Modified", lm) }
        return h
    }

    /// Seconds of freshness left (negative when stale). `storedAt` is when the response's age was
    /// 0 (see `ValidationStateMachine.headArrived`), so its current age is `now - storedAt`.
    package func ttl(now: Int, policy: FreshnessPolicy) -> Int {
        freshness(policy).lifetime - (now - resource.meta.storedAt)
    }

    /// Fresh by RFC 9111 section 4.2 and, for a live playlist, by the live-playlist rule
    /// (`Freshness.livePlaylistAllows`). `monotonicNow` is on the clock of `playlistFetchedAt`.
    ///
    /// A live playlist whose origin gave it no lifetime (validators only, as a static server
    /// serves a packager's file) takes the live rule as its heuristic lifetime: RFC 9111 section
    /// 4.2.2 leaves a heuristic to the cache, and 10% of the age of a file rewritten every
    /// second is nothing, so each viewer's reload cost a revalidation (8,830 origin requests for
    /// 1,000 viewers in 10 s, issue 62). Players reload about every half target duration (RFC
    /// 8216 section 6.3.4), so that is as stale as a viewer's own copy would be.
    package func isFresh(now: Int, monotonicNow: Double, policy: FreshnessPolicy) -> Bool {
        var target: Double?
        if case let .live(t)? = hlsKind { target = t }
        guard Freshness.livePlaylistAllows(targetDuration: target, lastHeardAt: playlistFetchedAt, now: monotonicNow) else {
            return false
        }
        if target != nil, freshness(policy).isHeuristic { return true }
        return ttl(now: now, policy: policy) > 0
    }

    /// The stored response's fields (see `StoredResponseHeaders`), built once per version and
    /// refresh and shared by every hit.
    package func responseHeaders(via: String) -> HeaderBlock {
        let r = resource
        if let c = headerCache, c.version == r.version, c.storedAt == r.meta.storedAt { return c.headers }
        let m = r.meta
        let block = HeaderBlock(StoredResponseHeaders.compose(replayed: m.headers, status: m.status, contentType: m.contentType, etag: m.etag,
                                                              lastModified: m.lastModified, via: via))
        headerCache = (r.version, m.storedAt, block)
        return block
    }
}
