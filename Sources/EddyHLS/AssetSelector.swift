/// Chooses what to download of a multivariant playlist, as AVAssetDownloadTask does with an
/// AVAssetDownloadConfiguration (see `DownloadConfiguration`).
///
/// - Variant: the given index; else the first qualifier that matches any variant picks among its
///   matches (see `VariantQualifier.pick`); with no qualifier, the highest peak bit rate among
///   the variants with video.
/// - Media (audio, subtitles): the entries asked for, each of which must match a rendition of
///   the group the variant references (`all` takes the group, `none` nothing). Automatic, when
///   nothing is asked: the group's DEFAULT=YES rendition plus the autoselectable one in the
///   locale's language, as AVFoundation's automatic media selection does; for audio, the group's
///   first rendition when neither exists. Closed captions travel inside the video: nothing to fetch.
/// - Auxiliary configurations add their variant's renditions; a variant whose video is the
///   primary's (same playlist, or the same resolution, video codecs, frame rate and range)
///   adds only its audio and subtitles, so no video is fetched twice.
public enum AssetSelector {
    public static func select(_ p: MultivariantPlaylist, primary: DownloadConfiguration, auxiliary: [DownloadConfiguration] = [],
                              locale: String? = nil) throws(SelectionError) -> AssetSelection {
        var out: [SelectedRendition] = []
        func add(_ r: SelectedRendition) { if !out.contains(where: { $0.uri == r.uri }) { out.append(r) } }
        let main = try variant(p, primary, role: "the primary configuration's")
        add(stream(main))
        for r in try media(p, main, primary, locale: locale) { add(r) }
        var aux: [Variant] = []
        for (i, c) in auxiliary.enumerated() {
            let v = try variant(p, c, role: "auxiliary configuration \(i + 1)'s")
            aux.append(v)
            if !sameVideo(v, main) { add(stream(v)) }
            for r in try media(p, v, c, locale: locale) { add(r) }
        }
        return AssetSelection(primary: main, auxiliary: aux, renditions: out)
    }

    static func variant(_ p: MultivariantPlaylist, _ c: DownloadConfiguration, role: String) throws(SelectionError) -> Variant {
        guard !p.variants.isEmpty else { throw SelectionError("the playlist has no variant streams (is it a media playlist?)") }
        if let i = c.variantIndex {
            guard i >= 0 && i < p.variants.count else {
                throw SelectionError("there is no variant \(i); the playlist has variants 0 to \(p.variants.count - 1)")
            }
            return p.variants[i]
        }
        if c.qualifiers.isEmpty {
            let video = p.variants.filter(hasVideo)
            return VariantQualifier(predicate: .always).pick(video.isEmpty ? p.variants : video, in: p)!
        }
        for q in c.qualifiers {
            if let v = q.pick(p.variants, in: p) { return v }
        }
        throw SelectionError("no variant matches \(role) qualifiers; the variants are: " + p.variants.map(describe).joined(separator: "; "))
    }

    static func media(_ p: MultivariantPlaylist, _ v: Variant, _ c: DownloadConfiguration, locale: String?) throws(SelectionError) -> [SelectedRendition] {
        var out: [SelectedRendition] = []
        for (type, wanted) in [(RenditionType.audio, c.audio), (.subtitles, c.subtitles)] {
            let groupID = MultivariantPlaylist.group(type, of: v)
            let group = p.renditions(type, group: groupID).filter { $0.uri != nil }
            let chosen: [Rendition]
            if let wanted {
                chosen = try explicit(type, wanted, group, v, groupID)
            } else {
                chosen = automatic(type, group, locale: locale)
            }
            for r in chosen where !out.contains(where: { $0.uri == r.uri }) {
                out.append(SelectedRendition(type: type, uri: r.uri!, groupID: r.groupID, language: r.language, name: r.name))
            }
        }
        return out
    }

    static func explicit(_ type: RenditionType, _ wanted: [String], _ group: [Rendition], _ v: Variant,
                         _ groupID: String?) throws(SelectionError) -> [Rendition] {
        let words = wanted.map { $0.lowercased() }
        if words.contains("none") || wanted.isEmpty { return [] }
        let kind = type == .audio ? "audio" : "subtitle"
        guard !group.isEmpty else {
            throw SelectionError("variant \(v.index) has no alternative \(kind) renditions to choose from (asked for \(wanted.joined(separator: ",")))")
        }
        if words.contains("all") { return group }
        var out: [Rendition] = []
        for w in wanted {
            guard let choice = RenditionChoice(w) else { throw SelectionError("'\(w)' is not a \(kind) selection") }
            let m = group.filter(choice.matches)
            guard !m.isEmpty else {
                let have = group.map { "\($0.language ?? "und") \"\($0.name)\"" + ($0.channels.map { " \($0)ch" } ?? "") }
                throw SelectionError("no \(kind) rendition of group \"\(groupID ?? "")\" (variant \(v.index)) matches '\(w)'; it has: \(have.joined(separator: ", "))")
            }
            for r in m where !out.contains(r) { out.append(r) }
        }
        return out
    }

    static func automatic(_ type: RenditionType, _ group: [Rendition], locale: String?) -> [Rendition] {
        var out = group.filter(\.isDefault).prefix(1).map { $0 }
        if let lang = language(ofLocale: locale),
           let r = group.first(where: { $0.autoselect && $0.language.map { RenditionChoice.languageMatches($0, lang) } == true }),
           !out.contains(r) {
            out.append(r)
        }
        if type == .audio && out.isEmpty, let first = group.first { out = [first] }
        return out
    }

    /// The language of a POSIX locale (`fr_CA.UTF-8` gives `fr`); nil for C and POSIX.
    public static func language(ofLocale locale: String?) -> String? {
        guard let locale else { return nil }
        let l = locale.split(separator: ".").first.flatMap { $0.split(separator: "@").first }?.split(separator: "_").first.map(String.init) ?? ""
        return l.isEmpty || l == "C" || l == "POSIX" ? nil : l.lowercased()
    }

    static func hasVideo(_ v: Variant) -> Bool { !v.videoCodecs.isEmpty || v.height != nil }

    static func stream(_ v: Variant) -> SelectedRendition {
        let audioOnly = !hasVideo(v) && !v.audioCodecs.isEmpty
        return SelectedRendition(type: audioOnly ? .audio : .video, uri: v.uri, name: describe(v), variantIndex: v.index)
    }

    static func sameVideo(_ a: Variant, _ b: Variant) -> Bool {
        if a.uri == b.uri { return true }
        guard hasVideo(a), hasVideo(b) else { return false }
        return a.width == b.width && a.height == b.height && a.videoCodecs == b.videoCodecs && a.frameRate == b.frameRate
            && (a.videoRange ?? "SDR") == (b.videoRange ?? "SDR")
    }

    /// `3: 1920x1080 avc1.64002a,mp4a.40.2 9873268 b/s PQ`.
    public static func describe(_ v: Variant) -> String {
        var parts = ["\(v.index):"]
        if let w = v.width, let h = v.height { parts.append("\(w)x\(h)") }
        if !v.codecs.isEmpty { parts.append(v.codecs.joined(separator: ",")) }
        parts.append("\(v.bandwidth) b/s")
        if let r = v.videoRange { parts.append(r) }
        return parts.joined(separator: " ")
    }
}
