/// One file of an exported download (`GET /api/downloads/{id}/export`): a playlist with its text
/// rewritten to relative URIs, or data (segment, initialization section, key) that the CLI reads
/// from `GET /api/downloads/{id}/file?url=` (with `Range` for each of `ranges` when given).
package struct ExportFile: Encodable, Equatable {
    /// Where it goes, relative to the export folder (see `ExportLayout`).
    package var path: String
    /// A playlist's text.
    package var text: String?
    /// Data: the upstream URL, its length, and the byte ranges the playlists use (nil: all of it).
    package var url: String?
    var length: Int?
    var ranges: [[Int]]?
    /// A key: written with mode 0600.
    var key: Bool?
}
