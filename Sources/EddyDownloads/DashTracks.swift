import EddyCore
import EddyDASH
import EddyHLS

/// An MPD's representations described to the selection language (`AssetSelector`: qualifiers
/// such as `peakBitRate`, `height`, `videoCodec`; audio and subtitles by language, `name:`,
/// `all`, `none`), as a multivariant playlist of the same tracks: each video representation a
/// variant, each audio one an audio rendition of the group every variant names, each text one
/// a subtitles rendition. A track is one representation `id` across the periods (ISO/IEC
/// 23009-1 section 5.3.5.2: ids name the same content from period to period).
///
/// What maps: `@bandwidth` to BANDWIDTH (`peakBitRate`), `@width`/`@height` to RESOLUTION,
/// `@frameRate` to FRAME-RATE, `@codecs` to CODECS, the transfer characteristics property to
/// VIDEO-RANGE (16 PQ, 18 HLG), AudioChannelConfiguration to CHANNELS, the adaptation set's
/// `@lang` to LANGUAGE, the roles `caption` and `description` to CHARACTERISTICS. Not mapped:
/// `@averageBandwidth`-like figures (DASH has none), HDCP, accessibility descriptors.
package struct DashTracks {
    /// One track: its representation in each period where it appears.
    struct Track {
        var id: String
        var kind: RenditionType
        var periods: [MPDRepresentation]
        var first: MPDRepresentation { periods[0] }
    }

    let tracks: [Track]
    /// The synthetic multivariant playlist; a track is named by the URI `dash-track:N`.
    package let playlist: MultivariantPlaylist
    /// Some adaptation set carries ContentProtection.
    let isProtected: Bool

    init(_ manifest: MPDManifest) {
        var tracks: [Track] = []
        for rep in manifest.allRepresentations {
            let kind = DashTracks.kind(of: rep)
            if let i = tracks.firstIndex(where: { $0.id == rep.id && $0.kind == kind }) {
                tracks[i].periods.append(rep)
            } else {
                tracks.append(Track(id: rep.id, kind: kind, periods: [rep]))
            }
        }
        self.tracks = tracks
        isProtected = manifest.periods.contains { $0.isProtected }
        playlist = MultivariantPlaylist(HLSPlaylist(DashTracks.describe(tracks)))
    }

    /// The track a selected rendition names.
    func track(of s: SelectedRendition) -> Track? {
        guard s.uri.hasPrefix("dash-track:"), let i = Int(s.uri.dropFirst("dash-track:".count)), tracks.indices.contains(i) else { return nil }
        return tracks[i]
    }

    static func kind(of rep: MPDRepresentation) -> RenditionType {
        let type = (rep.contentType ?? rep.mimeType ?? "").lowercased()
        if type.hasPrefix("audio") { return .audio }
        if type.hasPrefix("text") || type.hasPrefix("application") { return .subtitles }
        return .video
    }

    /// The multivariant playlist text of `tracks` (RFC 8216 section 4.4.6).
    static func describe(_ tracks: [Track]) -> String {
        func q(_ s: String) -> String { "\"" + s.filter { $0 != "\"" && $0 != "\n" && $0 != "\r" } + "\"" }
        var lines = ["#EXTM3U"]
        let hasVideo = tracks.contains { $0.kind == .video }
        var firstAudio = true
        for (i, t) in tracks.enumerated() where t.kind != .video && (hasVideo || t.kind == .subtitles) {
            let group = t.kind == .audio ? "aud" : "sub"
            var a = ["TYPE=\(t.kind == .audio ? "AUDIO" : "SUBTITLES")", "GROUP-ID=\"\(group)\"", "NAME=" + q(t.first.lang.map { "\($0) \(t.id)" } ?? t.id)]
            if let lang = t.first.lang { a.append("LANGUAGE=" + q(lang)) }
            if t.kind == .audio && firstAudio { a += ["DEFAULT=YES", "AUTOSELECT=YES"]; firstAudio = false }
            if let n = t.first.channels { a.append("CHANNELS=\"\(n)\"") }
            if let c = characteristics(t.first.roles) { a.append("CHARACTERISTICS=" + q(c)) }
            lines.append("#EXT-X-MEDIA:" + (a + ["URI=\"dash-track:\(i)\""]).joined(separator: ","))
        }
        let audio = hasVideo && tracks.contains { $0.kind == .audio }
        let subs = tracks.contains { $0.kind == .subtitles }
        for (i, t) in tracks.enumerated() where t.kind == .video || (!hasVideo && t.kind == .audio) {
            let r = t.first
            var a = ["BANDWIDTH=\(r.bandwidth ?? 1)"]
            if let w = r.width, let h = r.height { a.append("RESOLUTION=\(w)x\(h)") }
            if let c = r.codecs { a.append("CODECS=" + q(c)) }
            if let f = r.frameRate.flatMap(DashTracks.rate) { a.append("FRAME-RATE=\(f)") }
            if let range = r.videoRange { a.append("VIDEO-RANGE=\(range)") }
            if audio { a.append("AUDIO=\"aud\"") }
            if subs { a.append("SUBTITLES=\"sub\"") }
            lines += ["#EXT-X-STREAM-INF:" + a.joined(separator: ","), "dash-track:\(i)"]
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The HLS characteristics (RFC 8216bis section 4.4.6.1) of DASH roles: captions transcribe
    /// dialog and describe sound; a description track describes the video.
    static func characteristics(_ roles: [String]) -> String? {
        var out: [String] = []
        if roles.contains("caption") {
            out += ["public.accessibility.transcribes-spoken-dialog", "public.accessibility.describes-music-and-sound"]
        }
        if roles.contains("description") { out.append("public.accessibility.describes-video") }
        return out.isEmpty ? nil : out.joined(separator: ",")
    }

    /// `25` or `30000/1001` as a number.
    static func rate(_ text: String) -> Double? {
        let p = text.split(separator: "/")
        guard let n = p.first.flatMap({ Double($0) }) else { return nil }
        guard p.count == 2 else { return n }
        return Double(p[1]).flatMap { $0 > 0 ? n / $0 : nil }
    }
}
