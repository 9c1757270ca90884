import EddyCache
import EddyCore
import EddyLoop

extension CacheExchange {
    /// Publishes a plain memory-tier hit for any loop to answer the same request-target from
    /// (`HitSnapshots`): only when the answer depends on nothing but the target and the clock, so
    /// that the copy is the same response as this one.
    func publishHit(_ r: CachedResource, status: Int, headers: HeaderBlock, extra: HTTPHeaders, bytes: SharedBytes, range: Range<Int>) {
        guard let snapshots = services.hitSnapshots, status == 200, range == 0..<bytes.count, key == base,
              HitSnapshots.eligible(method: request.method, headers: request.headers),
              cacheStatus == plainHit, !revalidateWhenDone, let ttl = cacheStatus.ttl, ttl > 0,
              headers.headers["Vary"] == nil, !services.playlists.isPlaylist(r, url: url), !services.playlists.isKey(url)
        else { return }
        var bodyFields = HTTPHeaders(capacity: 2)
        for (n, v) in extra where !n.caseInsensitiveEquals("Age") && !n.caseInsensitiveEquals("Cache-Status") { bodyFields.add(n, v) }
        let now = services.loop.wallClock()
        snapshots.publish(target: request.uri, key: key, headers: headers, bodyFields: bodyFields, bytes: bytes,
                          storedAt: r.meta.storedAt, lifetime: ttl + (now - r.meta.storedAt))
    }

    /// The Cache-Status of a hit with nothing to say but its ttl.
    private var plainHit: CacheStatus {
        var s = CacheStatus()
        s.ttl = cacheStatus.ttl
        return s
    }
}
