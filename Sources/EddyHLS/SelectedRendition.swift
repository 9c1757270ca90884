/// One media playlist a download fetches: a variant's own stream (`type` video, or audio for an
/// audio-only variant) or an alternative rendition, with what identifies it to a user.
public struct SelectedRendition: Equatable, Sendable, Codable {
    public var type: RenditionType
    /// The media playlist's URI as the multivariant playlist writes it.
    public var uri: String
    public var groupID: String?
    public var language: String?
    public var name: String?
    /// For a variant's stream: its index; nil for an alternative rendition.
    public var variantIndex: Int?

    public init(type: RenditionType, uri: String, groupID: String? = nil, language: String? = nil, name: String? = nil,
                variantIndex: Int? = nil) {
        self.type = type
        self.uri = uri
        self.groupID = groupID
        self.language = language
        self.name = name
        self.variantIndex = variantIndex
    }
}
