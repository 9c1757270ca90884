/// What a multivariant playlist offers (RFC 8216bis section 4.4.6): its variant streams in order
/// and its alternative renditions. Read from any text: tags it does not understand, variants
/// without a BANDWIDTH or URI, and renditions without TYPE, GROUP-ID or NAME are skipped, so a
/// hostile playlist yields fewer choices, never an error. At most `maxEntries` of each are read.
public struct MultivariantPlaylist: Sendable, Equatable {
    public private(set) var variants: [Variant] = []
    public private(set) var renditions: [Rendition] = []
    /// EXT-X-I-FRAME-STREAM-INF entries (trick play; listed, not downloaded).
    public private(set) var iFrameStreams = 0

    /// More entries than any real asset has (Apple's largest published examples have ~30
    /// variants): beyond this a playlist is hostile and the rest is ignored.
    public static let maxEntries = 1000

    public init(_ playlist: HLSPlaylist) {
        var pending: AttributeList?
        for line in playlist.lines {
            let text = line.text
            if let p = pending, HLSPlaylist.isURILine(text) {
                if variants.count < Self.maxEntries,
                   let v = Variant(index: variants.count, attributes: p, uri: String(text.trimmingOWS())) {
                    variants.append(v)
                }
                pending = nil
                continue
            }
            guard let tag = HLSPlaylist.tagName(text) else { continue }
            let attributes = { AttributeList(text.dropFirst(tag.count + 2)) }
            switch tag {
            case "EXT-X-STREAM-INF": pending = attributes()
            case "EXT-X-MEDIA":
                if renditions.count < Self.maxEntries, let r = Rendition(attributes()) { renditions.append(r) }
            case "EXT-X-I-FRAME-STREAM-INF": iFrameStreams += 1
            default: break
            }
        }
    }

    public init(_ text: String) { self.init(HLSPlaylist(text)) }

    /// The renditions of `type` in `group`, in playlist order.
    public func renditions(_ type: RenditionType, group: String?) -> [Rendition] {
        guard let group else { return [] }
        return renditions.filter { $0.type == type && $0.groupID == group }
    }

    /// The group of `type` a variant references.
    public static func group(_ type: RenditionType, of v: Variant) -> String? {
        switch type {
        case .video: return v.videoGroup
        case .audio: return v.audioGroup
        case .subtitles: return v.subtitlesGroup
        case .closedCaptions: return v.closedCaptionsGroup
        }
    }

    /// The most audio channels among the renditions of a variant's audio group (nil without any).
    public func channels(of v: Variant) -> Int? {
        renditions(.audio, group: v.audioGroup).compactMap(\.channelCount).max()
    }
}
