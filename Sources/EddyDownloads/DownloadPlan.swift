import EddyCore
import EddyHLS

/// Everything one download fetches, as a value: the selected renditions and the units to bring
/// into the cache (playlists, keys, initialization sections, segments), each (URL, byte range)
/// once. Segments are ordered by media time across renditions, so what is downloaded first can
/// be played first. Built from playlists already fetched; no I/O.
package struct DownloadPlan: Equatable {
    /// What a unit is, for the log and for progress (only segments count as segments).
    enum Kind: String, Equatable { case playlist, key, map, segment, file }

    /// One thing to fetch.
    struct Unit: Equatable {
        var url: UpstreamURL
        var range: Range<Int>?
        var kind: Kind
        /// The rendition it belongs to (index into `renditions`); nil for the multivariant playlist.
        var rendition: Int?
        /// Media time of a segment in its rendition, and its EXTINF duration.
        var start = 0.0
        var duration = 0.0
        /// The segment's URI as its playlist writes it (for the log and failure reasons).
        var name: String
        /// The cache key it is fetched and held under when not its URL's: a file download's new
        /// version, staged beside the old one (`Coordinators.stagingKey`).
        var key: String?

        /// What makes two units the same fetch: the URL and the byte range.
        var id: String { (key ?? url.description) + (range.map { "#\($0.lowerBound)-\($0.upperBound)" } ?? "") }

        /// What progress needs of it (see `ProgressTally`).
        var facts: UnitFacts {
            UnitFacts(rendition: rendition, isSegment: kind == .segment, start: start, duration: duration, exactBytes: range?.count)
        }
    }

    /// One selected media playlist and its totals.
    package struct Rendition: Equatable {
        package var selected: SelectedRendition
        package var url: UpstreamURL
        /// Peak bit rate when known (a variant's BANDWIDTH), for size estimates.
        var bandwidth: Int?
        var segments = 0
        var mediaSeconds = 0.0
    }

    package var renditions: [Rendition] = []
    var units: [Unit] = []
    /// True when the job's URL is a multivariant playlist (its first unit); false for a media one.
    var isMultivariant = false
    /// A file download's length (nil when the origin did not say); nil for HLS.
    package var fileLength: Int?
    /// True for a file download (`DownloadKind.file`): its units are byte ranges of one file.
    package var isFile = false
    /// Some selected rendition is DRM-protected (see `MediaPlaylist.drm`): its segments are
    /// downloaded, its keys cannot be.
    var drm = false
    /// Some unit is a key (kept as units are added: `keys` is read by every API view).
    var hasKeys = false

    /// What the API's `keys` says: "none", "stored" (AES-128 or identity SAMPLE-AES keys, pinned
    /// with the segments) or, for DRM, "drm, not downloadable".
    package var keys: String {
        if drm { return "drm, not downloadable" }
        return hasKeys ? "stored" : "none"
    }

    /// A plan for `selection` of a multivariant playlist at `url`, with the media playlists
    /// fetched (by their resolved URL); renditions whose playlist is missing have no segments.
    static func build(url: UpstreamURL, playlist: MultivariantPlaylist?, selection: [SelectedRendition],
                      media: [UpstreamURL: MediaPlaylist]) -> DownloadPlan {
        var plan = DownloadPlan()
        var seen = Set<String>()
        func add(_ u: Unit) {
            guard seen.insert(u.id).inserted else { return }
            plan.units.append(u)
            if u.kind == .key { plan.hasKeys = true }
        }
        if playlist != nil {
            plan.isMultivariant = true
            add(Unit(url: url, kind: .playlist, name: url.pathAndQuery))
        }
        var segments: [Unit] = []
        for s in selection {
            guard let rURL = URIReference.resolve(s.uri, against: url) else { continue }
            let index = plan.renditions.count
            let bandwidth = s.variantIndex.flatMap { i in playlist?.variants.first { $0.index == i }?.bandwidth }
            var r = Rendition(selected: s, url: rURL, bandwidth: bandwidth)
            add(Unit(url: rURL, kind: .playlist, rendition: index, name: s.uri))
            var t = 0.0
            if media[rURL]?.drm == true { plan.drm = true }
            for seg in media[rURL]?.segments ?? [] where !seg.isGap {
                if let k = seg.keyURI, seg.keyMethod != "NONE", let ku = URIReference.resolve(k, against: rURL) {
                    add(Unit(url: ku, kind: .key, rendition: index, name: k))
                }
                if let m = seg.mapURI, let mu = URIReference.resolve(m, against: rURL) {
                    add(Unit(url: mu, range: seg.mapByteRange, kind: .map, rendition: index, name: m))
                }
                guard let su = URIReference.resolve(seg.uri, against: rURL) else { continue }
                segments.append(Unit(url: su, range: seg.byteRange, kind: .segment, rendition: index,
                                     start: t, duration: seg.duration, name: seg.uri))
                t += seg.duration
                r.segments += 1
            }
            r.mediaSeconds = t
            plan.renditions.append(r)
        }
        // Media time first, then rendition order: the first minutes of every rendition come first.
        segments.sort { ($0.start, $0.rendition ?? 0) < ($1.start, $1.rendition ?? 0) }
        for s in segments { add(s) }
        return plan
    }
}
