/// What `POST /api/downloads/{id}/refresh` found (`eddy download refresh`).
package struct RefreshReport: Encodable, Equatable {
    package var id: String
    /// Something new is being fetched: renditions added, or a file's new version.
    package var changed: Bool
    /// HLS: the media playlists added (URIs as the multivariant playlist writes them).
    package var added: [String] = []
    /// HLS: renditions held from before that the selection no longer picks; they stay.
    package var kept: [String] = []
    /// A file: its length, new or as it was.
    package var length: Int?
    /// In words, for the CLI.
    package var detail: String

    enum CodingKeys: String, CodingKey { case id, changed, added, kept, length, detail }

    package func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(changed, forKey: .changed)
        try c.encode(added, forKey: .added)
        try c.encode(kept, forKey: .kept)
        try c.encode(length, forKey: .length) // null for HLS: always present, for scripts
        try c.encode(detail, forKey: .detail)
    }
}
