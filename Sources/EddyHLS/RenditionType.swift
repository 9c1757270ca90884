/// The TYPE of an EXT-X-MEDIA rendition (RFC 8216bis section 4.4.6.1), or the main video of a
/// variant in a download's list of renditions.
public enum RenditionType: String, Sendable, Codable, CaseIterable, Comparable {
    case video = "VIDEO"
    case audio = "AUDIO"
    case subtitles = "SUBTITLES"
    case closedCaptions = "CLOSED-CAPTIONS"

    public static func < (a: RenditionType, b: RenditionType) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}
