/// Strong entity tags for the admin listener's built-in files (the dashboard, the OpenAPI
/// document): an FNV-1a hash of each file's text, the same in every run of one build. With them a
/// browser's `Cache-Control: no-cache` revalidation costs a 304, and a cache that must revalidate
/// has a validator to do it with (REDbot: no-cache without a validator).
package enum EmbeddedFileTags {
    package static let byPath: [String: String] = EmbeddedFiles.byPath.mapValues { tag($0.text) }

    static func tag(_ text: String) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in text.utf8 {
            h ^= UInt64(b)
            h = h &* 0x100_0000_01b3
        }
        return "\"" + String(h, radix: 16) + "\""
    }
}
