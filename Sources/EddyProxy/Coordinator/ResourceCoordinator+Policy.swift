import EddyCache
import EddyCore
import EddyHLS
import EddyLoop

/// Freshness and stored response headers, computed by EddyCore's pure policy and cached per
/// (version, refresh): a hit pays neither the date parsing nor the header composition.
extension ResourceCoordinator {
    /// Seconds of freshness left (negative when stale), RFC 9111 section 4.2.
    func ttl(now: Int, defaultLifetime: Int) -> Int {
        let r = resource
        if let c = lifetime, c.version == r.version, c.storedAt == r.meta.storedAt {
            return c.seconds - (now - r.meta.storedAt)
        }
        let h = r.meta.headers
        let f = Freshness.compute(cacheControl: CacheControl.parse(h.combined("Cache-Control")), expires: h["Expires"],
                                  date: h["Date"], defaultLifetime: defaultLifetime)
        lifetime = (r.version, r.meta.storedAt, f.lifetime)
        return f.lifetime - (now - r.meta.storedAt)
    }

    /// Fresh by RFC 9111 section 4.2 and, for a live playlist, by the live-playlist rule
    /// (`Freshness.livePlaylistAllows`). `monotonicNow` is on the clock of `playlistFetchedAt`.
    func isFresh(now: Int, monotonicNow: Double, defaultLifetime: Int) -> Bool {
        var target: Double?
        if case let .live(t)? = hlsKind { target = t }
        guard Freshness.livePlaylistAllows(targetDuration: target, lastHeardAt: playlistFetchedAt, now: monotonicNow) else {
            return false
        }
        return ttl(now: now, defaultLifetime: defaultLifetime) > 0
    }

    /// The stored response's fields (see `StoredResponseHeaders`), built once per version and
    /// refresh and shared by every hit.
    func responseHeaders(via: String) -> HeaderBlock {
        let r = resource
        if let c = headerCache, c.version == r.version, c.storedAt == r.meta.storedAt { return c.headers }
        let m = r.meta
        let block = HeaderBlock(StoredResponseHeaders.compose(replayed: m.headers, contentType: m.contentType, etag: m.etag,
                                                              lastModified: m.lastModified, via: via))
        headerCache = (r.version, m.storedAt, block)
        return block
    }
}
