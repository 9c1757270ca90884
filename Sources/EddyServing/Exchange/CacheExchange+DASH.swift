import EddyCache
import EddyCore
import EddyHLS
import EddyResources

/// MPEG-DASH manifests: sent whole and rewritten, as HLS playlists are (`servePlaylist` hands
/// them here once every byte is on disk).
extension CacheExchange {
    /// Sends the stored MPD `r` with every BaseURL, Location and absolute segment URL naming
    /// eddy in the request's URL form. An MPD that does not parse, or is refused (a DTD, too
    /// large), is answered 502: the origin's answer is not one eddy can pass on without sending
    /// the player around it. `stored` is the stored response's fields with Age.
    func serveMPD(_ r: CachedResource, coordinator c: ResourceCoordinator, stored: HTTPHeaders) {
        // Offline, an MPD downloads hold tracks of lists those only (as a multivariant playlist).
        let held = machine.isOffline ? services.offlineRenditions?(url) : nil
        switch services.playlists.mpdResponse(r, url: url, form: form, held: held) {
        case let .failure(e):
            services.logger.warning("origin sent an MPD eddy does not serve", metadata: ["url": "\(url)", "reason": "\(e)"])
            fail(502, "the origin's MPD: \(e)")
        case let .success((body, kind)):
            c.learned(kind)
            var fields = stored
            if machine.isOffline {
                // As for playlists: this node's offline copy, not the origin's representation.
                fields.set("Cache-Control", "no-cache")
                fields.remove("Expires")
                fields.remove("Last-Modified")
            }
            let headers = Playlists.responseHeaders(fields, bodyCount: body.count)
            if !machine.isOffline {
                c.rewrittenPlaylist = RewrittenPlaylist(version: r.version, storedAt: r.meta.storedAt, url: url, form: form,
                                                        kind: kind, body: body)
            }
            sendPlaylist(r, kind: kind, headers: headers, body: body)
        }
    }
}
