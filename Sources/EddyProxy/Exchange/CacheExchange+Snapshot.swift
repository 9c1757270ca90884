import EddyCache
import EddyCore
import EddyLoop

extension CacheExchange {
    /// Publishes a plain hit for any loop to answer the same request-target from (`HitSnapshots`):
    /// only when the answer depends on nothing but the target, the Range and the clock, so that
    /// the copy is the same response as this one. `bytes`: the memory tier's copy of the whole
    /// body; nil publishes the data file instead (a complete version, every byte verified).
    /// `status` and `headers` are this response's: a 200, or a 206 of one span, with the stored fields.
    func publishHit(_ r: CachedResource, status: Int, headers: HeaderBlock, bytes: SharedBytes?) {
        guard let snapshots = services.hitSnapshots, status == 200 || status == 206, pieces.count == 1, key == base,
              !chunked, !isHead, let length = r.meta.length, r.meta.status == 200, r.isComplete,
              HitSnapshots.eligible(method: request.method, headers: request.headers),
              HitSnapshots.plan(range: request.headers["Range"], length: length) != nil,
              cacheStatus == plainHit, !revalidateWhenDone, let ttl = cacheStatus.ttl, ttl > 0,
              headers.headers["Vary"] == nil, !services.playlists.isPlaylist(r, url: url), !services.playlists.isKey(url)
        else { return }
        let body: HitSnapshots.Body
        if let bytes, bytes.count == length {
            body = .bytes(bytes)
        } else {
            // Bytes read back from the index are served only once checked (see CacheStore.verify).
            guard r.unverified.isEmpty, snapshots.wantsFile(for: request.uri),
                  let d = SharedDescriptor(duplicating: r.fd) else { return }
            body = .file(d)
        }
        let now = services.loop.wallClock()
        snapshots.publish(target: request.uri, key: key, headers: headers, body: body, length: length,
                          storedAt: r.meta.storedAt, lifetime: ttl + (now - r.meta.storedAt))
    }

    /// The Cache-Status of a hit with nothing to say but its ttl.
    private var plainHit: CacheStatus {
        var s = CacheStatus()
        s.ttl = cacheStatus.ttl
        return s
    }
}
