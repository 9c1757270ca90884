/// One rendition of a download, for the API.
package struct RenditionProgress: Encodable {
    var type: String
    var uri: String
    var language: String?
    var name: String?
    var groupID: String?
    var variantIndex: Int?
    /// Every unit stored: a player offline can use it.
    var complete: Bool
    var progress: DownloadProgress

    enum CodingKeys: String, CodingKey {
        case type, uri, language, name
        case groupID = "group_id", variantIndex = "variant_index", complete
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(type, forKey: .type)
        try c.encode(uri, forKey: .uri)
        try c.encode(language, forKey: .language)
        try c.encode(name, forKey: .name)
        try c.encode(groupID, forKey: .groupID)
        try c.encode(variantIndex, forKey: .variantIndex)
        try c.encode(complete, forKey: .complete)
        try progress.encode(to: encoder)
    }
}
