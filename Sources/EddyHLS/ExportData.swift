import EddyCore

/// The data files an export needs (`eddy download export`): every segment, initialization section
/// and key the exported media playlists name, each file once, in the order first named, with the
/// byte ranges the playlists use of it (nil when some playlist uses all of it). Pure.
///
/// A file is listed once however many segments name it: an fMP4 rendition names its init section
/// (EXT-X-MAP) and an encrypted one its key (EXT-X-KEY) for every segment, and two renditions may
/// share one file (an auxiliary configuration reusing the primary's video).
public struct ExportData: Equatable, Sendable {
    /// One file to export.
    public struct File: Equatable, Sendable {
        public let url: UpstreamURL
        /// The distinct ranges used, in the order first named; nil for the whole file.
        public internal(set) var ranges: [Range<Int>]?
        /// An AES key (written with mode 0600).
        public internal(set) var isKey: Bool
    }

    public private(set) var files: [File] = []
    private var index: [UpstreamURL: Int] = [:]

    public init() {}

    /// The files the playlists name, `media` being each exported media playlist with its URL.
    public init(media: [(UpstreamURL, MediaPlaylist)]) {
        for (base, playlist) in media {
            for s in playlist.segments where !s.isGap {
                use(s.uri, s.byteRange, against: base)
                use(s.mapURI, s.mapByteRange, against: base)
                if s.keyMethod != nil { use(s.keyURI, nil, against: base, isKey: true) }
            }
        }
    }

    /// Notes that `uri` (resolved against `base`) is used, in `range` or whole.
    public mutating func use(_ uri: String?, _ range: Range<Int>?, against base: UpstreamURL, isKey: Bool = false) {
        guard let uri, let u = URIReference.resolve(uri, against: base) else { return }
        guard let i = index[u] else {
            index[u] = files.count
            files.append(File(url: u, ranges: range.map { [$0] }, isKey: isKey))
            return
        }
        if isKey { files[i].isKey = true }
        guard let known = files[i].ranges else { return } // already whole
        guard let range else { files[i].ranges = nil; return }
        if !known.contains(range) { files[i].ranges = known + [range] }
    }
}
