import EddyCore

/// Where each URL of a downloaded asset goes in a self-contained HLS folder (`eddy download
/// export`), and the playlists rewritten to name those files by relative URIs. Pure: the engine
/// hands it the playlists and the URLs held; the CLI writes the files.
///
/// Files under the root playlist's directory keep their relative path; others go under
/// `_ext/HOST/`. Each path component keeps only `A-Z a-z 0-9 . _ -` (no `..`, no absolute path:
/// a hostile playlist cannot make the export write outside its folder). A query string becomes a
/// short hash before the extension (players such as ffmpeg choose a demuxer by extension), and
/// two URLs never share a file.
public struct ExportLayout {
    /// The root playlist's URL; its directory is the folder's root.
    public let root: UpstreamURL
    private var pathOf: [UpstreamURL: String] = [:]
    private var taken = Set<String>()

    public init(root: UpstreamURL) {
        self.root = root
    }

    /// The file `url` is written to, relative to the folder; the same path every time it is asked.
    public mutating func path(for url: UpstreamURL) -> String {
        if let p = pathOf[url] { return p }
        let (path, query) = ExportLayout.split(url.pathAndQuery)
        let rootPath = ExportLayout.split(root.pathAndQuery).0
        let rootDir = rootPath.lastIndex(of: "/").map { rootPath[...$0] } ?? "/"
        var rel: Substring
        if url.hasSameOrigin(as: root) && path.hasPrefix(rootDir) {
            rel = path.dropFirst(rootDir.count)
        } else {
            let port = url.port == url.defaultPort ? "" : "_\(url.port)"
            rel = Substring("_ext/\(url.host)\(port)\(path)")
        }
        var parts = rel.split(separator: "/").map(ExportLayout.clean)
        if parts.isEmpty { parts = ["index"] }
        if !query.isEmpty { parts[parts.count - 1] = ExportLayout.tagged(parts[parts.count - 1], ExportLayout.hash(query)) }
        var candidate = parts.joined(separator: "/")
        var n = 2
        while taken.contains(candidate) {
            var p = parts
            p[p.count - 1] = ExportLayout.tagged(p[p.count - 1], "\(n)")
            candidate = p.joined(separator: "/")
            n += 1
        }
        taken.insert(candidate)
        pathOf[url] = candidate
        return candidate
    }

    /// `playlist` (fetched from `url`) with every URI that resolves to a URL `exported` holds
    /// rewritten to the relative path of its file from the playlist's own file; other URIs (a DRM
    /// key's `skd://`, anything not downloaded) stay as written.
    public mutating func rewrite(_ playlist: HLSPlaylist, at url: UpstreamURL, exported: (UpstreamURL) -> Bool) -> String {
        var p = playlist
        let from = path(for: url)
        p.rewriteURIs { uri in
            guard let target = URIReference.resolve(uri, against: url), exported(target) else { return nil }
            return ExportLayout.relative(from: from, to: self.path(for: target))
        }
        return p.text
    }

    /// The relative URI of the file `to` from the file `from` (both folder-relative paths).
    public static func relative(from: String, to: String) -> String {
        let a = from.split(separator: "/").dropLast()
        let b = to.split(separator: "/")
        var common = 0
        while common < a.count && common < b.count - 1 && a[a.startIndex + common] == b[common] { common += 1 }
        let up = Array(repeating: "..", count: a.count - common)
        return (up + b[common...].map(String.init)).joined(separator: "/")
    }

    private static func split(_ pathAndQuery: String) -> (Substring, Substring) {
        guard let q = pathAndQuery.firstIndex(of: "?") else { return (Substring(pathAndQuery), "") }
        return (pathAndQuery[..<q], pathAndQuery[pathAndQuery.index(after: q)...])
    }

    /// A path component reduced to safe characters; `.` and `..` cannot survive.
    static func clean(_ part: Substring) -> String {
        var s = String(part.map { c in c.isASCII && (c.isLetter || c.isNumber || c == "." || c == "_" || c == "-") ? c : "_" })
        if s.allSatisfy({ $0 == "." }) { s = String(repeating: "_", count: s.count) }
        return String(s.prefix(120))
    }

    /// `name.ext` as `name-tag.ext`.
    static func tagged(_ name: String, _ tag: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name + "-" + tag }
        return name[..<dot] + "-" + tag + name[dot...]
    }

    /// FNV-1a of the query, 8 hex digits: stable across runs (Swift's Hasher is seeded per process).
    static func hash(_ s: Substring) -> String {
        var h: UInt32 = 2_166_136_261
        for b in s.utf8 { h = (h ^ UInt32(b)) &* 16_777_619 }
        let hex = String(h, radix: 16)
        return String(repeating: "0", count: 8 - hex.count) + hex
    }
}
