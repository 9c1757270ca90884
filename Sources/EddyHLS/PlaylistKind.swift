/// What a playlist is, for caching (issue: live playlists must be fresh, VOD ones cache like media).
public enum PlaylistKind: Equatable, Sendable {
    /// A multivariant ("master") playlist: EXT-X-STREAM-INF or EXT-X-MEDIA, no segments.
    case multivariant
    /// A media playlist that will not change: EXT-X-ENDLIST or EXT-X-PLAYLIST-TYPE:VOD.
    case vod
    /// A media playlist that grows (live or event); reload at most every half target duration.
    case live(targetDuration: Double)
}
