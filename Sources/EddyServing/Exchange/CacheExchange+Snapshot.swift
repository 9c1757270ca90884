import EddyCache
import EddyCore
import EddyHLS
import EddyLoop

extension CacheExchange {
    /// Publishes a plain hit for any loop to answer the same request-target from (`HitSnapshots`):
    /// only when the answer depends on nothing but the target, the Range and the clock, so that
    /// the copy is the same response as this one. `bytes`: the memory tier's copy of the whole
    /// body; nil publishes the data file instead (every stored byte verified), with the ranges
    /// stored now when the version is not complete: the snapshot answers spans within them.
    /// `status` and `headers` are this response's: a 200, or a 206 of one span, with the stored fields.
    func publishHit(_ r: CachedResource, status: Int, headers: HeaderBlock, bytes: SharedBytes?) {
        // One piece with a 200 or 206: the whole body or one span, as `HitSnapshots.plan` answers.
        guard let snapshots = snapshotsForPlainHit(fields: headers.headers), status == 200 || status == 206, pieces.count == 1,
              !chunked, let length = r.meta.length, r.meta.status == 200, let ttl = cacheStatus.ttl, ttl > 0,
              !services.playlists.isPlaylist(r, url: url, coordinator: coordinator(of: r)), !services.playlists.isKey(url)
        else { return }
        let body: HitSnapshots.Body
        let complete = r.isComplete
        if let bytes, bytes.count == length, complete {
            body = .bytes(bytes)
        } else {
            // Bytes read back from the index are served only once checked (see CacheStore.verify).
            guard r.unverified.isEmpty, snapshots.wantsFile(for: request.uri, stored: complete ? nil : r.confirmed),
                  let d = SharedDescriptor(duplicating: r.fd) else { return }
            body = .file(d)
        }
        let now = services.loop.wallClock()
        snapshots.publish(target: request.uri, key: key, headers: headers, body: body, length: length,
                          stored: complete ? nil : r.confirmed, storedAt: r.meta.storedAt, lifetime: ttl + (now - r.meta.storedAt))
    }

    /// Publishes a plain hit on a playlist as sent: rewritten for this request-target's URL form
    /// (which the target alone decides), the whole body whatever the Range, as `servePlaylist`
    /// sends it. A live playlist's entry ends where the live rule would send the next request to
    /// the origin (half a target duration after the origin was last heard, RFC 8216bis 6.2.1's
    /// reload interval), and reports no ttl, as the exchange does not.
    func publishPlaylist(_ r: CachedResource, kind: PlaylistKind, fields: HTTPHeaders, body: [UInt8]) {
        guard let snapshots = snapshotsForPlainHit(fields: fields), !body.isEmpty, r.meta.status == 200, !machine.isOffline
        else { return }
        let now = services.loop.wallClock()
        let ttl = services.ttl(coordinator(of: r), now: now)
        var until = Double.infinity, live = false
        if case let .live(target) = kind {
            guard let heard = coordinator(of: r).playlistFetchedAt else { return }
            (until, live) = (heard + target / 2, true)
        }
        guard ttl > 0, until > EventLoop.monotonic(),
              let bytes = SharedBytes(count: body.count, fill: { $0.copyBytes(from: body); return true }) else { return }
        var h = fields
        h.remove("Age") // each answer's own, as Content-Length and Cache-Status
        h.remove("Content-Length")
        snapshots.publish(target: request.uri, key: key, headers: HeaderBlock(h), body: .bytes(bytes), length: body.count,
                          storedAt: r.meta.storedAt, lifetime: ttl + (now - r.meta.storedAt), servesRanges: false,
                          reportsTTL: !live, until: until)
    }

    /// The snapshots to publish this response in, when it is a plain hit whose copy answers the
    /// same target alike: a GET (or one span of it) without conditionals or Cache-Control, on the
    /// URL's own key, not varying (`fields`: the response's), with nothing to revalidate; nil otherwise.
    private func snapshotsForPlainHit(fields: HTTPHeaders) -> HitSnapshots? {
        guard let snapshots = services.hitSnapshots, key == base, !isHead,
              HitSnapshots.eligible(method: request.method, headers: request.headers),
              cacheStatus == plainHit, !revalidateWhenDone, fields["Vary"] == nil, fields["Content-Range"] == nil else { return nil }
        return snapshots
    }

    /// The Cache-Status of a hit with nothing to say but its ttl.
    private var plainHit: CacheStatus {
        var s = CacheStatus()
        s.ttl = cacheStatus.ttl
        return s
    }
}
