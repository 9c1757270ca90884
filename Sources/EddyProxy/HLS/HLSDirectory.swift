import EddyCore
import EddyHLS

/// What eddy learned from the media playlists it served: which segments follow each segment in its
/// rendition (for prefetch) and which URLs are encryption keys. Bounded: it forgets everything past
/// `capacity` entries rather than grow with a long live stream.
final class HLSDirectory {
    private(set) var keyURLs = Set<String>()
    private var following: [String: [UpstreamURL]] = [:]
    private let capacity = 50_000

    /// Records the segments of a media playlist fetched from `base`, each with the `depth` after it.
    func learn(_ playlist: HLSPlaylist, base: UpstreamURL, depth: Int) {
        for k in playlist.keyURIs {
            if let u = URIReference.resolve(k, against: base) { keyURLs.insert(u.description) }
        }
        guard depth > 0 else { return }
        let segments = playlist.segmentURIs.compactMap { URIReference.resolve($0, against: base) }
        if following.count + segments.count > capacity { following.removeAll() }
        for (i, s) in segments.enumerated() {
            var next: [UpstreamURL] = []
            var j = i + 1
            // Sub-ranges of one file (EXT-X-BYTERANGE) share a URL: the next distinct URLs only.
            while j < segments.count && next.count < depth {
                if segments[j] != s && !next.contains(segments[j]) { next.append(segments[j]) }
                j += 1
            }
            following[s.description] = next
        }
        if keyURLs.count > capacity { keyURLs.removeAll() }
    }

    /// False until a media playlist has been learned: requests skip the lookup.
    var hasSegments: Bool { !following.isEmpty }

    /// The segments to prefetch after a request for `key`.
    func segments(after key: String) -> [UpstreamURL] { following[key] ?? [] }
}
