import EddyCache
import EddyCore
import EddyHLS
import EddyLoop
import EddyResources

/// HLS playlists (and MPDs, `serveMPD`): sent whole, rewritten, once every byte is on disk.
extension CacheExchange {
    // MARK: - playlists

    /// Sends the playlist rewritten so every URI goes through eddy, once all its bytes are on disk.
    func servePlaylist(_ r: CachedResource) {
        if r.isComplete, !r.unverified.isEmpty, let len = r.meta.length { _ = services.cache.verify(r, 0..<len) }
        guard r.isComplete else {
            machine.playlistIncomplete()
            let first = r.meta.length.flatMap { r.confirmed.gaps(in: 0..<$0).first?.lowerBound }
            body.waitForPlaylist(at: first ?? r.confirmed.contiguousLength(from: 0), end: r.meta.length ?? Int.max)
            ticket?.need()
            return
        }
        let c = coordinator(of: r)
        var stored = services.responseHeaders(for: c).headers
        stored.add("Age", services.age(r, now: services.loop.wallClock()))
        if !machine.isOffline, let memo = c.rewrittenPlaylist, memo.matches(r, url: url, form: form) {
            // Rewritten for this URL and form already (the viewers a held reload woke at once).
            return sendPlaylist(r, kind: memo.kind, headers: Playlists.responseHeaders(stored, bodyCount: memo.body.count),
                                body: memo.body)
        }
        if services.playlists.isMPD(r, url: url) { return serveMPD(r, coordinator: c, stored: stored) }
        guard var playlist = services.playlists.readPlaylist(r) else {
            // Too large or not text after all: serve the stored bytes as they are.
            machine.playlistUnreadable()
            respond(r)
            return
        }
        c.learned(playlist.kind)
        if machine.isOffline, let recorded = services.recordedPlaylist?(url) {
            // A live playlist a download recorded: offline, the whole recording, not the last window.
            playlist = HLSPlaylist(recorded)
        }
        if machine.isOffline, case .multivariant = playlist.kind, let held = services.offlineRenditions?(url) {
            // The origin is gone: list only what downloads hold whole, so that a player never
            // switches to a variant or rendition whose segments are not here.
            playlist = OfflineMultivariant.filter(playlist) { uri in
                URIReference.resolve(uri, against: url).map { held.contains($0.description) } ?? false
            }
        }
        if machine.isOffline {
            // Not the origin's representation but this node's offline one: caches after this one
            // (a child eddy, a browser) must ask again, and get the whole one once the origin is back.
            // No validator either: the origin's would make the cut one look current then.
            stored.set("Cache-Control", "no-cache")
            stored.remove("Expires")
            stored.remove("Last-Modified")
        }
        let response = services.loopServices.playlistResponse(playlist, headers: stored, url: url, form: form)
        if !machine.isOffline {
            c.rewrittenPlaylist = RewrittenPlaylist(version: r.version, storedAt: r.meta.storedAt, url: url, form: form,
                                                    kind: playlist.kind, body: response.body)
        }
        sendPlaylist(r, kind: playlist.kind, headers: response.headers, body: response.body)
    }

    /// Sends a rewritten playlist whole and completes. Each response publishes it as a snapshot
    /// for later hits on the loop that took the request (each loop keeps its own table).
    func sendPlaylist(_ r: CachedResource, kind: PlaylistKind, headers: HTTPHeaders, body bytes: [UInt8]) {
        var h = headers
        machine.setStored(cacheStatus.forward != nil)
        if case .live = kind {} else { machine.setTTL(services.ttl(coordinator(of: r), now: services.loop.wallClock())) }
        h.add("Cache-Status", cacheStatus.description) // after a parent's entries, if any
        publishPlaylist(r, kind: kind, fields: headers, body: bytes)
        body.servedWhole(r.meta.length ?? 0)
        // Held whole before this response, in this version (a hit, or a 304): none from the origin.
        if wholeAtLookup == r.version { allFromCache = true }
        request.send(status: 200, headers: h, body: isHead ? [] : bytes)
        complete()
    }
}
