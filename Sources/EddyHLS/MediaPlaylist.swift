/// The segments of a media playlist and what a download needs of them: their total duration,
/// their exact size where byte ranges give it, and every resource to fetch (segments, media
/// initialization sections, keys). Never fails; at most `maxSegments` segments are read.
public struct MediaPlaylist: Sendable, Equatable {
    public private(set) var segments: [MediaSegment] = []
    public private(set) var targetDuration: Double?
    public private(set) var endList = false
    /// A key tag names a DRM system (a KEYFORMAT other than `identity`, or an `skd:` URI):
    /// FairPlay, Widevine, PlayReady. Such keys come from a license server at play time and
    /// cannot be downloaded; the segments can, and the tags are kept as they are.
    public private(set) var drm = false

    /// A 24-hour VOD asset of 1-second segments has 86,400; more is hostile.
    public static let maxSegments = 200_000

    public init(_ playlist: HLSPlaylist) {
        var duration: Double?
        var range: (length: Int, offset: Int?)?, gap = false
        var map: (String, Range<Int>?)?
        var key: (String, String?)?
        var lastEnd: [String: Int] = [:]
        for line in playlist.lines where segments.count < Self.maxSegments {
            let text = line.text
            if HLSPlaylist.isURILine(text) {
                let uri = String(text.trimmingOWS())
                // Without an offset a range follows the previous one of the same URI (section 4.4.4.2).
                let resolved = range.flatMap { MediaPlaylist.resolve($0, after: lastEnd[uri] ?? 0) }
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
                duration = AttributeList.decimalFloat(d)
            case "EXT-X-BYTERANGE": range = MediaPlaylist.byteRange(value)
            case "EXT-X-GAP": gap = true
            case "EXT-X-MAP":
                let a = AttributeList(value)
                // A map's byte range without an offset is read from byte 0: there is no previous
                // range of its URI to follow.
                map = a["URI"].map { ($0, a["BYTERANGE"].flatMap { MediaPlaylist.byteRange(Substring($0)) }.flatMap { MediaPlaylist.resolve($0, after: 0) }) }
            case "EXT-X-KEY":
                let a = AttributeList(value)
                let method = a["METHOD"] ?? "NONE"
                // Several key tags with different KEYFORMATs may apply at once (RFC 8216bis
                // section 4.4.4.4); only the identity one is a key a download can fetch.
                if MediaPlaylist.isDRM(format: a["KEYFORMAT"], uri: a["URI"]) {
                    if method != "NONE" { drm = true }
                    continue
                }
                key = method == "NONE" ? nil : (method, a["URI"])
            case "EXT-X-TARGETDURATION": targetDuration = AttributeList.decimalFloat(value.trimmingOWS())
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

    /// A key tag whose key is not a plain file of 16 bytes (KEYFORMAT absent or "identity",
    /// section 4.4.4.4) at an http(s) or relative URI.
    static func isDRM(format: String?, uri: String?) -> Bool {
        if let format, format != "identity" { return true }
        guard let scheme = uri.flatMap({ URIReference.schemeOf(Substring($0)) }) else { return false }
        return scheme != "http" && scheme != "https" && scheme != "data"
    }

    /// `n[@o]` (section 4.4.4.2): a length and, when given, an offset.
    static func byteRange(_ text: Substring) -> (length: Int, offset: Int?)? {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false).map { $0.trimmingOWS() }
        guard parts.count <= 2, let n = AttributeList.decimalInteger(parts[0]), n > 0 else { return nil }
        guard parts.count == 2 else { return (n, nil) }
        guard let o = AttributeList.decimalInteger(parts[1]) else { return nil }
        return (n, o)
    }

    /// The range a byte range names, its offset defaulting to `start`; nil when it would overflow.
    static func resolve(_ r: (length: Int, offset: Int?), after start: Int) -> Range<Int>? {
        let o = r.offset ?? start
        guard o <= Int.max - r.length else { return nil }
        return o..<(o + r.length)
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
