/// An alternative rendition (EXT-X-MEDIA, RFC 8216bis section 4.4.6.1): an audio, subtitle,
/// closed-caption or alternative video rendition of a group that variants reference.
public struct Rendition: Sendable, Equatable, Codable {
    public var type: RenditionType
    public var groupID: String
    public var name: String
    public var language: String?
    public var assocLanguage: String?
    public var isDefault: Bool
    public var autoselect: Bool
    public var forced: Bool
    /// CHANNELS as written ("2", "6", "16/JOC"); `channelCount` is its first parameter.
    public var channels: String?
    public var characteristics: [String]
    /// The media playlist's URI as written; nil for closed captions (carried in the video) and for
    /// a rendition whose media is in the variant's own stream.
    public var uri: String?
    public var instreamID: String?

    /// Reads an EXT-X-MEDIA tag's attributes; nil without a known TYPE, GROUP-ID or NAME.
    public init?(_ a: AttributeList) {
        guard let t = a["TYPE"].flatMap(RenditionType.init(rawValue:)), let g = a["GROUP-ID"], let n = a["NAME"] else { return nil }
        type = t
        groupID = g
        name = n
        language = a["LANGUAGE"]
        assocLanguage = a["ASSOC-LANGUAGE"]
        isDefault = a.flag("DEFAULT")
        // AUTOSELECT must be YES when DEFAULT is (section 4.4.6.1); read it so.
        autoselect = a.flag("AUTOSELECT") || isDefault
        forced = t == .subtitles && a.flag("FORCED")
        channels = a["CHANNELS"]
        characteristics = a.list("CHARACTERISTICS")
        uri = t == .closedCaptions ? nil : a["URI"]
        instreamID = a["INSTREAM-ID"]
    }

    /// The number of audio channels: CHANNELS' first slash-separated parameter.
    public var channelCount: Int? {
        guard let c = channels?.split(separator: "/").first else { return nil }
        return Int(c)
    }
}
