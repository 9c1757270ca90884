/// Reading one reload of a live playlist into recorded segments.
extension LiveRecording {
    /// What one reload says.
    struct Reload {
        var segments: [RecordedSegment] = []
        var targetDuration = 0
        var version: Int?
        var independentSegments = false
        var endList = false
        var multivariant = false
    }

    /// Tags that belong to the segment after them and are written with it.
    static let segmentTags: Set<Substring> = [
        "EXTINF", "EXT-X-BYTERANGE", "EXT-X-DISCONTINUITY", "EXT-X-PROGRAM-DATE-TIME", "EXT-X-GAP", "EXT-X-BITRATE",
        "EXT-X-DATERANGE",
    ]

    /// The segments of `playlist` with their sequence numbers and the key and map tags in effect.
    /// LL-HLS tags (parts, preload hints, rendition reports, server control) are left out: a
    /// recording is of whole segments, and a VOD playlist has no use for them.
    static func read(_ playlist: HLSPlaylist) -> Reload {
        var r = Reload()
        var sequence = 0, discontinuities = 0, index = 0
        var keys: [(format: String, line: String)] = []
        var map: String?
        var pending: [String] = []
        var duration: Double?
        for line in playlist.lines where r.segments.count < MediaPlaylist.maxSegments {
            let text = line.text.trimmingOWS()
            if HLSPlaylist.isURILine(text) {
                r.segments.append(RecordedSegment(sequence: sequence &+ index, discontinuitySequence: discontinuities,
                                                  duration: duration ?? 0, keys: keys.map(\.line), map: map,
                                                  lines: pending + [String(text)]))
                index += 1
                pending = []
                duration = nil
                continue
            }
            guard let tag = HLSPlaylist.tagName(text) else { continue }
            let value = text.dropFirst(tag.count + 2)
            switch tag {
            // Both must come before the first segment (section 4.4.3.2 and 4.4.3.3); a later one
            // would number segments backwards within one reload.
            case "EXT-X-MEDIA-SEQUENCE" where r.segments.isEmpty:
                sequence = AttributeList.decimalInteger(value.trimmingOWS()) ?? sequence
            case "EXT-X-DISCONTINUITY-SEQUENCE" where r.segments.isEmpty:
                discontinuities = AttributeList.decimalInteger(value.trimmingOWS()) ?? discontinuities
            case "EXT-X-TARGETDURATION": r.targetDuration = AttributeList.decimalInteger(value.trimmingOWS()) ?? r.targetDuration
            case "EXT-X-VERSION": r.version = AttributeList.decimalInteger(value.trimmingOWS())
            case "EXT-X-INDEPENDENT-SEGMENTS": r.independentSegments = true
            case "EXT-X-ENDLIST": r.endList = true
            case "EXT-X-STREAM-INF", "EXT-X-MEDIA":
                r.multivariant = true
                return r
            case "EXT-X-MAP": map = String(text)
            case "EXT-X-KEY":
                // Each KEYFORMAT's tag applies until the next of the same format; METHOD=NONE
                // ends them all (section 4.4.4.4).
                let a = AttributeList(value)
                if (a["METHOD"] ?? "NONE") == "NONE" {
                    keys.removeAll()
                } else {
                    let format = a["KEYFORMAT"] ?? "identity"
                    keys.removeAll { $0.format == format }
                    keys.append((format, String(text)))
                }
            default:
                guard segmentTags.contains(tag) else { continue }
                if tag == "EXTINF" { duration = AttributeList.decimalFloat(value.prefix { $0 != "," }.trimmingOWS()) }
                if tag == "EXT-X-DISCONTINUITY" { discontinuities += 1 }
                pending.append(String(text))
            }
        }
        return r
    }
}
