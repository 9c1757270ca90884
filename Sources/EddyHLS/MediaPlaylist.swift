/// The segments of a media playlist and what a download needs of them: their total duration,
/// their exact size where byte ranges give it, and every resource to fetch (segments, media
/// initialization sections, keys). Never fails; at most `maxSegments` segments are read.
public struct MediaPlaylist: Sendable, Equatable {
    public private(set) var segments: [MediaSegment] = []
    public private(set) var targetDuration: Double?
    public private(set) var endList = false

    /// A 24-hour VOD asset of 1-second segments has 86,400; more is hostile.
    public static let maxSegments = 200_000

    public init(_ playlist: HLSPlaylist) {
        var duration: Double?
        var range: Range<Int>?, gap = false
        var map: (String, Range<Int>?)?
        var key: (String, String?)?
        var lastEnd: [String: Int] = [:]
        for line in playlist.lines where segments.count < Self.maxSegments {
            let text = line.text
            if HLSPlaylist.isURILine(text) {
                let uri = String(text.trimmingOWS())
                var resolved = range
                if let r = range, r.lowerBound == -1 { // no offset: follows the previous range of this URI
                    let start = lastEnd[uri] ?? 0
                    resolved = start..<(start + r.count - 1)
                }
                if let resolved { lastEnd[uri] = resolved.upperBound }
                segments.append(MediaSegment(uri: uri, duration: duration ?? 0, byteRange: resolved, mapURI: map?.0,
                                             mapByteRange: map?.1, keyMethod: key?.0, keyURI: key?.1, isGap: gap))
                duration = nil; range = nil; gap = false
                continue
            }
            guard let tag = HLSPlaylist.tagName(text) else { continue }
            let value = text.dropFirst(tag.count + 2)
            switch tag {
            case "EXTINF":
                let d = value.prefix { $0 != "," }.trimmingOWS()
                duration = AttributeList("D=\(d)").decimal("D")
            case "EXT-X-BYTERANGE": range = MediaPlaylist.byteRange(value)
            case "EXT-X-GAP": gap = true
            case "EXT-X-MAP":
                let a = AttributeList(value)
                map = a["URI"].map { ($0, a["BYTERANGE"].flatMap { MediaPlaylist.byteRange(Substring($0)) }) }
            case "EXT-X-KEY":
                let a = AttributeList(value)
                let method = a["METHOD"] ?? "NONE"
                key = method == "NONE" ? nil : (method, a["URI"])
            case "EXT-X-TARGETDURATION": targetDuration = AttributeList("D=\(value.trimmingOWS())").decimal("D")
            case "EXT-X-ENDLIST": endList = true
            case "EXT-X-STREAM-INF":
                // A multivariant playlist: its URI lines are variants, not segments (a playlist
                // must not be both, RFC 8216bis section 4.1).
                segments.removeAll()
                return
            default: break
            }
        }
    }

    public init(_ text: String) { self.init(HLSPlaylist(text)) }

    /// `n[@o]` (section 4.4.4.2) as a range; without `@o` the lower bound is -1 and the count is
    /// n + 1, resolved against the previous range once the URI is known.
    static func byteRange(_ text: Substring) -> Range<Int>? {
        let parts = text.trimmingOWS().split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count <= 2, let n = AttributeList("N=\(parts[0])").integer("N"), n > 0 else { return nil }
        guard parts.count == 2 else { return -1..<n }
        guard let o = AttributeList("O=\(parts[1])").integer("O"), o <= Int.max - n else { return nil }
        return o..<(o + n)
    }

    /// The sum of EXTINF durations, seconds.
    public var duration: Double { segments.reduce(0) { $0 + $1.duration } }

    /// The bytes of every segment and initialization section when every one has a byte range;
    /// nil otherwise (the origin's lengths are needed).
    public var exactBytes: Int? {
        var total = 0
        var maps = Set<String>()
        for s in segments where !s.isGap {
            guard let r = s.byteRange else { return nil }
            total += r.count
            if let m = s.mapURI {
                guard let mr = s.mapByteRange else { return nil }
                if maps.insert("\(m)@\(mr.lowerBound)").inserted { total += mr.count }
            }
        }
        return total
    }
}
