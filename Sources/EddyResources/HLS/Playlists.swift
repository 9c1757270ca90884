import EddyCache
import EddyCore
import EddyDASH
import EddyHLS
import EddyLoop
import Logging

/// HLS: recognising playlists, rewriting them for the client's URL form, and prefetching the
/// segments that follow the one a player asks for.
package final class Playlists {
    /// Playlists larger than this are served as they are, not rewritten.
    package static let maxPlaylistBytes = 16 << 20
    /// What the playlists seen so far say: segments in order, and key URLs (every home's).
    package let directory: HLSDirectory
    /// Runs a prefetch on the home of the segment's resource (set by the homes; nil runs it here).
    package var onHomeOf: ((UpstreamURL, @escaping (Playlists) -> Void) -> Void)?
    let cache: any Cache
    let coordinators: Coordinators
    let routing: Routing
    /// The routes as they are now (a reload replaces them).
    var resolver: TargetResolver { routing.resolver }
    let metrics: Metrics
    let logger: Logger
    let loop: EventLoop
    /// Segments fetched ahead of the one asked for (0 turns prefetch off).
    /// Segments fetched ahead of a player (`prefetch_segments`; a reload changes it).
    package var prefetchSegments: Int
    /// False when the cache directory is unusable: nothing is prefetched then.
    package var cacheAvailable = true

    package init(cache: any Cache, coordinators: Coordinators, routing: Routing, metrics: Metrics, logger: Logger,
         loop: EventLoop, prefetchSegments: Int, directory: HLSDirectory) {
        self.directory = directory
        self.cache = cache
        self.coordinators = coordinators
        self.routing = routing
        self.metrics = metrics
        self.logger = logger
        self.loop = loop
        self.prefetchSegments = prefetchSegments
    }

    /// True when `url` was named as a key (`EXT-X-KEY`) by a playlist seen so far.
    package func isKey(_ url: UpstreamURL) -> Bool { directory.isKeyURL(resolver.cacheKey(url)) }

    /// True when the stored resource is an HLS playlist: by media type, by .m3u8/.m3u path, or, for
    /// generic types, by a body starting with #EXTM3U.
    /// The kind of the stored playlist `r` (nil when it is not one), read once per coordinator and
    /// kept there for the live-playlist freshness rule.
    /// `coordinator` is `r`'s, when the caller holds it already.
    package func kind(of r: CachedResource, url: UpstreamURL, coordinator: ResourceCoordinator? = nil) -> PlaylistKind? {
        let c = coordinator ?? coordinators.of(r)
        // An MPD's kind is learnt when it is served (`mpdResponse`), never by reading it as HLS.
        if c.hlsKind == nil, isPlaylist(r, url: url, coordinator: c), !isMPD(r, url: url), let p = readPlaylist(r) { c.learned(p.kind) }
        return c.hlsKind
    }

    package func isPlaylist(_ r: CachedResource, url: UpstreamURL, coordinator: ResourceCoordinator? = nil) -> Bool {
        let coordinator = coordinator ?? coordinators.of(r)
        if let c = coordinator.playlistCheck, c.version == r.version, c.complete == r.isComplete { return c.isPlaylist }
        let answer = checkPlaylist(r, url: url)
        coordinator.checkedPlaylist(answer, version: r.version, complete: r.isComplete)
        return answer
    }

    private func checkPlaylist(_ r: CachedResource, url: UpstreamURL) -> Bool {
        if Playlists.isManifest(contentType: r.meta.contentType, url: url) { return true }
        guard let head = genericHead(r) else { return false }
        return HLSPlaylist.looksLikePlaylist(head) || MPDSniffer.looksLikeMPD(head)
    }

    /// True when the stored resource is an MPEG-DASH manifest (served rewritten, as playlists are):
    /// by media type, `.mpd` path, or, for generic and XML types, a body opening an `MPD` element.
    package func isMPD(_ r: CachedResource, url: UpstreamURL) -> Bool {
        // Only a generic type's body is sniffed (no head otherwise: nothing to look like an MPD).
        Playlists.isMPD(contentType: r.meta.contentType, url: url, head: genericHead(r) ?? [])
    }

    /// The first bytes of a stored body whose media type does not say what it is (none, octet
    /// stream, plain text, XML), to sniff; nil for other types or when they are not stored.
    private func genericHead(_ r: CachedResource) -> [UInt8]? {
        let ct = r.meta.contentType?.lowercased() ?? ""
        let generic = ["application/octet-stream", "text/plain", "application/xml", "text/xml"]
        guard ct.isEmpty || generic.contains(where: ct.hasPrefix),
              (r.meta.length ?? 0) <= Playlists.maxPlaylistBytes, r.confirmed.contains(0..<7) else { return nil }
        // Enough for an XML declaration and a comment before `<MPD`; #EXTM3U needs 7.
        let n = Swift.min(r.confirmed.contiguousLength(from: 0), Swift.min(512, r.meta.length ?? 512))
        return cache.read(r, 0..<n)
    }

    /// The whole stored playlist, if complete, small enough and UTF-8 (RFC 8216 section 4.1).
    package func readPlaylist(_ r: CachedResource) -> HLSPlaylist? {
        guard r.isComplete, let len = r.meta.length, len <= Playlists.maxPlaylistBytes, cache.verify(r, 0..<len) else { return nil }
        guard let buf = cache.read(r, 0..<len) else { return nil }
        return Playlists.playlist(from: buf)
    }

    /// A playlist from bytes already identified as one (by type, path or sniffing); nil when they
    /// are not UTF-8 text, in which case they are served as they are. A missing #EXTM3U line is
    /// tolerated: players differ, and rewriting never changes other lines.
    package static func playlist(from bytes: [UInt8]) -> HLSPlaylist? {
        guard let text = String(validating: bytes, as: UTF8.self) else { return nil }
        return HLSPlaylist(text)
    }

    /// Learns what a media playlist fetched from `url` says: its segments in order (for prefetch)
    /// and its keys (the key rule). Home loop.
    package func learn(_ playlist: HLSPlaylist, url: UpstreamURL) {
        if case .multivariant = playlist.kind {} else {
            let resolver = self.resolver
            directory.learn(playlist, base: url, depth: prefetchSegments, keyOf: resolver.cacheKey)
        }
    }

    /// `playlist` rewritten for `form`, as a response: the origin's validator does not name
    /// eddy's body, and ranges of the origin's bytes do not apply to it. Any loop.
    package static func response(_ playlist: HLSPlaylist, headers: HTTPHeaders, url: UpstreamURL, form: RequestForm,
                         resolver: TargetResolver) -> (body: [UInt8], headers: HTTPHeaders) {
        let body = Array(rewrite(playlist, url: url, form: form, resolver: resolver).text.utf8)
        return (body, responseHeaders(headers, bodyCount: body.count))
    }

    /// The stored response's `headers` as a rewritten playlist of `bodyCount` bytes goes out: not
    /// the origin's ETag (the bytes are eddy's), no ranges, its own length.
    package static func responseHeaders(_ headers: HTTPHeaders, bodyCount: Int) -> HTTPHeaders {
        var h = headers
        h.remove("ETag")
        h.set("Accept-Ranges", "none")
        h.set("Content-Length", "\(bodyCount)")
        return h
    }

    /// Rewrites every URI of a playlist fetched from `url` so that it goes through eddy in `form`.
    /// URIs eddy may not fetch, and non-HTTP ones, stay as written. Under a `cache_key` rule the
    /// playlist is stored once for every viewer; the URIs it names keep the requesting viewer's
    /// own parameters (its signature), not those of the viewer it was fetched for.
    static func rewrite(_ playlist: HLSPlaylist, url: UpstreamURL, form: RequestForm, resolver: TargetResolver) -> HLSPlaylist {
        var p = playlist
        let viewer = resolver.cacheKeys.viewerParameters(of: url)
        p.rewriteURIs { uri in
            guard let target = URIReference.resolve(uri, against: url) else { return nil }
            return resolver.eddyTarget(for: resolver.cacheKeys.personalize(target, for: viewer), form: form)
        }
        return p
    }

    /// Fetches the segments that follow `key` in its rendition into the cache, unless they are there
    /// or on their way. Each fetch is an ordinary fill, so a player asking meanwhile shares it;
    /// each runs on its segment's home.
    package func prefetch(after key: String) {
        guard prefetchSegments > 0, cacheAvailable, directory.hasSegments else { return }
        for next in directory.segments(after: key) {
            guard let onHomeOf else {
                prefetch(segment: next)
                continue
            }
            onHomeOf(next) { $0.prefetch(segment: next) }
        }
    }

    /// Fetches `next` into the cache unless it is there or on its way. On its home.
    func prefetch(segment next: UpstreamURL) {
        let resolver = self.resolver
        let k = resolver.cacheKey(next)
        if coordinators.isDiscovering(k) { return }
        // A playlist may name any URL; prefetch fetches only what the gate allows, with the
        // address check the gate asks for (the playlist request's own does not carry over).
        guard case let .allow(checkAddress) = resolver.gate.check(next) else {
            logger.debug("prefetch refused by the upstream gate", metadata: ["url": "\(next)"])
            return
        }
        // Filed under `k` as a discovery, and cleared under the fill's key: the same string.
        let fetch = FetchContext(url: next, checkAddress: checkAddress, key: k, base: k)
        if let r = cache.lookup(k, now: loop.wallClock()) {
            // A prefetch ticket from the first missing byte to the end: the coordinator fills
            // the gaps, sharing any fill a player starts meanwhile, and closes it when done.
            let c = coordinators.of(r)
            guard !r.isComplete, c.fills.isEmpty, !c.hasTickets, r.meta.ifRangeValidator != nil, let len = r.meta.length,
                  let gap = r.confirmed.gaps(in: 0..<len).first else { return }
            _ = c.open(priority: .prefetch, fetchOnly: true, range: gap.lowerBound..<len, fetch: fetch, consumer: nil)
        } else {
            coordinators.join(k, for: .prefetch, fetch: fetch, asked: nil, waiter: nil)
        }
        metrics.prefetches += 1
    }
}
