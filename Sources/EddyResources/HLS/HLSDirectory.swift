import EddyCore
import EddyHLS

/// What eddy learned from the media playlists (and MPDs) it served: which segments follow each segment in its
/// rendition (for prefetch) and which URLs are encryption keys. Bounded: it forgets everything past
/// `capacity` entries rather than grow with a long live stream. One for the whole proxy: a
/// playlist is learned on its home loop and read on the homes of its segments and keys, so the
/// tables sit behind a mutex.
package final class HLSDirectory: Sendable {
    private struct Tables {
        var keyURLs = Set<String>()
        var following: [String: [UpstreamURL]] = [:]
    }
    private let tables = Locked(Tables())
    private let capacity = 50_000

    package init() {}

    /// Records the segments of a media playlist fetched from `base`, each with the `depth` after
    /// it, by cache key (`keyOf`, see `TargetResolver.cacheKey`: a request finds them by its key).
    func learn(_ playlist: HLSPlaylist, base: UpstreamURL, depth: Int, keyOf: (UpstreamURL) -> String = { $0.description }) {
        let keys = playlist.keyURIs.compactMap { URIReference.resolve($0, against: base).map(keyOf) }
        let segments = depth > 0 ? playlist.segmentURIs.compactMap { URIReference.resolve($0, against: base) } : []
        learn(segments: segments, keys: keys, depth: depth, keyOf: keyOf)
    }

    /// Records one rendition's (or DASH representation's) segments in order, each with the
    /// `depth` after it, and `keys` as key URLs (cache keys).
    func learn(segments: [UpstreamURL], keys: [String] = [], depth: Int, keyOf: (UpstreamURL) -> String = { $0.description }) {
        var learned: [(String, [UpstreamURL])] = []
        if depth > 0 {
            for (i, s) in segments.enumerated() {
                var next: [UpstreamURL] = []
                var j = i + 1
                // Sub-ranges of one file (EXT-X-BYTERANGE) share a URL: the next distinct URLs only.
                while j < segments.count && next.count < depth {
                    if segments[j] != s && !next.contains(segments[j]) { next.append(segments[j]) }
                    j += 1
                }
                learned.append((keyOf(s), next))
            }
        }
        let capacity = capacity
        tables.withLock { t in
            t.keyURLs.formUnion(keys)
            if t.following.count + learned.count > capacity { t.following.removeAll() }
            for (k, next) in learned { t.following[k] = next }
            if t.keyURLs.count > capacity { t.keyURLs.removeAll() }
        }
    }

    /// True when `key` was named as a key (`EXT-X-KEY`) by a playlist seen so far.
    func isKeyURL(_ key: String) -> Bool { tables.withLock { !$0.keyURLs.isEmpty && $0.keyURLs.contains(key) } }

    /// False until a media playlist has been learned: requests skip the lookup.
    package var hasSegments: Bool { tables.withLock { !$0.following.isEmpty } }

    /// The segments to prefetch after a request for `key`.
    func segments(after key: String) -> [UpstreamURL] { tables.withLock { $0.following[key] ?? [] } }
}
