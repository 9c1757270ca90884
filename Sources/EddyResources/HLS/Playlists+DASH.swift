import EddyCache
import EddyCore
import EddyDASH
import EddyHLS

/// MPEG-DASH manifests through the proxy: served rewritten so that every URL they name goes
/// through eddy, as HLS playlists are.
extension Playlists {
    /// The stored MPD `r`, fetched from `url`, rewritten for `form`: its body and its kind (a
    /// dynamic MPD with `minimumUpdatePeriod` P is live with a "target duration" of 2P, so the
    /// live-playlist rule keeps it no longer than P, ISO/IEC 23009-1 section 5.4), or why it is
    /// not an MPD eddy serves.
    package func mpdResponse(_ r: CachedResource, url: UpstreamURL, form: RequestForm,
                             held: Set<String>? = nil) -> Result<([UInt8], PlaylistKind), MPDError> {
        guard r.isComplete, let len = r.meta.length, cache.verify(r, 0..<len) else { return .failure(MPDError("the MPD is not stored whole")) }
        guard len <= MPDDocument.maxBytes else { return .failure(MPDError("the MPD is larger than \(MPDDocument.maxBytes) bytes")) }
        guard let bytes = cache.read(r, 0..<len) else { return .failure(MPDError("the stored MPD could not be read")) }
        let depth = prefetchSegments
        return Playlists.mpd(bytes, url: url, form: form, resolver: resolver, held: held) { [self] doc in
            guard depth > 0 else { return }
            learn(doc, url: url, depth: depth)
        }
    }

    /// Learns the segments of every representation of `doc`, fetched from `url`, for prefetch (as
    /// `learn` does a media playlist's). A manifest that would list too many segments is served
    /// but not learnt, with a log line.
    private func learn(_ doc: MPDDocument, url: UpstreamURL, depth: Int) {
        let manifest: MPDManifest
        do {
            manifest = try doc.manifest(documentURL: url.description, resolve: Playlists.upstreamResolve)
        } catch {
            return logger.warning("MPD segments not learnt for prefetch", metadata: ["url": "\(url)", "reason": "\(error)"])
        }
        let keyOf = resolver.cacheKey
        for rep in manifest.allRepresentations {
            // A segment listed twice in a row (byte ranges of one file) is one fetch.
            let urls = rep.segments.compactMap { UpstreamURL.parse(Substring($0.url)) }
            directory.learn(segments: urls, depth: depth, keyOf: keyOf)
        }
    }

    /// True when a response with `contentType` from `url` is an HLS playlist or an MPD by its
    /// type or path alone (a pass-through response collects such a body whole to rewrite it).
    package static func isManifest(contentType: String?, url: UpstreamURL) -> Bool {
        HLSPlaylist.isPlaylistType(contentType) || HLSPlaylist.isPlaylistPath(url.pathAndQuery)
            || MPDSniffer.isMPDType(contentType) || MPDSniffer.isMPDPath(url.pathAndQuery)
    }

    /// True when a body collected as a manifest (`isManifest`) is an MPD rather than a playlist.
    /// `head` is read only when the type and path do not say.
    package static func isMPD(contentType: String?, url: UpstreamURL, head: @autoclosure () -> [UInt8]) -> Bool {
        if HLSPlaylist.isPlaylistType(contentType) { return false }
        return MPDSniffer.isMPDType(contentType) || MPDSniffer.isMPDPath(url.pathAndQuery) || MPDSniffer.looksLikeMPD(Array(head().prefix(512)))
    }

    /// The name of the DASH track (representation) `id` of the MPD at `mpd` in what downloads
    /// hold (the offline catalog) and in the offline MPD's filter; never fetched: the MPD's URL
    /// with the id, percent-encoded, as a fragment.
    package static func dashTrackURL(of id: String, in mpd: UpstreamURL) -> UpstreamURL {
        var safe = ""
        for b in id.utf8 {
            let c = Character(Unicode.Scalar(b))
            safe += b < 0x80 && (c.isLetter || c.isNumber || "-._~".contains(c)) ? String(c) : "%" + String(b, radix: 16, uppercase: true)
        }
        return UpstreamURL(scheme: mpd.scheme, host: mpd.host, port: mpd.port, pathAndQuery: mpd.pathAndQuery + "#representation=" + safe)
    }

    /// `bytes`, an MPD fetched from `url`, rewritten for `form` (see `mpdResponse`). Any loop.
    /// `read` sees the document before it is rewritten (what it lists, for prefetch). With
    /// `held` (offline: the tracks downloads hold whole, `dashTrackURL`), only those
    /// representations are listed, so that a player never picks one whose segments are not here.
    package static func mpd(_ bytes: [UInt8], url: UpstreamURL, form: RequestForm, resolver: TargetResolver, held: Set<String>? = nil,
                            read: (MPDDocument) -> Void = { _ in }) -> Result<([UInt8], PlaylistKind), MPDError> {
        let doc: MPDDocument
        do { doc = try MPDDocument(bytes) } catch let e as MPDError { return .failure(e) } catch { return .failure(MPDError("\(error)")) }
        read(doc)
        if let held {
            do {
                try doc.keepRepresentations(documentURL: url.description, resolve: upstreamResolve) {
                    held.contains(dashTrackURL(of: $0.id, in: url).description)
                }
            } catch let e as MPDError { return .failure(e) } catch { return .failure(MPDError("\(error)")) }
        }
        let viewer = resolver.cacheKeys.viewerParameters(of: url)
        doc.rewriteURLs(documentURL: url.description, resolve: upstreamResolve, target: { absolute in
            UpstreamURL.parse(Substring(absolute)).flatMap {
                resolver.eddyTarget(for: resolver.cacheKeys.personalize($0, for: viewer), form: form)
            }
        })
        let kind: PlaylistKind
        if doc.isDynamic, let period = doc.minimumUpdatePeriod {
            kind = .live(targetDuration: 2 * period)
        } else {
            kind = .vod
        }
        return .success((doc.serialized(), kind))
    }

    /// A reference resolved against a base, both as text (RFC 3986 section 5.2), for the MPD walks.
    package static func upstreamResolve(_ reference: String, _ base: String) -> String? {
        UpstreamURL.parse(Substring(base)).flatMap { URIReference.resolve(reference, against: $0) }?.description
    }
}
