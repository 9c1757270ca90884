/// A download as the API shows it.
package struct DownloadInfo: Encodable {
    var id: String
    var url: String
    /// `hls` or `file` (see `DownloadKind`).
    var kind: String
    /// A file download's length and the byte ranges it holds ([start, end), merged); nil for HLS.
    var file: FileHeld?
    var title: String?
    var state: String
    var failure: String?
    var createdAt: Int
    var completedAt: Int?
    var progress: DownloadProgress
    /// Bytes per second over the last seconds, and the seconds left at that rate.
    var rate: Double
    var etaSeconds: Double?
    /// A player could play it with the origin gone (see `DownloadEngine.playableOffline`).
    var playableOffline: Bool
    /// Where it plays without ever touching the network (see `OfflineResponder`).
    var offlineURL: String
    var renditions: [RenditionProgress]
    /// Why it waits for space (`waiting-for-space`).
    var reason: String?
    /// Its keeping policy (see `DownloadPolicy`).
    var priority: String
    var expiresAt: Int?
    /// Bytes it keeps pinned in the cache.
    var pinnedBytes: Int
    /// "none", "stored" or "drm, not downloadable" (see `DownloadPlan.keys`); nil before the plan.
    var keys: String?
    /// Its download window (its own or the config's), and when a `scheduled` job next starts.
    var window: String?
    var nextStart: Int?
    /// Its own rate limit in bytes a second (`--rate`); nil: none of its own.
    var rateLimit: Int?
    /// Where its artwork is served (`/api/downloads/{id}/artwork`); nil when it has none.
    var artwork: String?
    /// A live or EVENT download's recording; nil for VOD.
    var recording: RecordingInfo?

    enum CodingKeys: String, CodingKey {
        case id, url, kind, file, title, state, failure, rate, renditions, reason, priority, keys, recording
        case window, nextStart = "next_start", rateLimit = "rate_limit", artwork
        case expiresAt = "expires_at", pinnedBytes = "pinned_bytes"
        case createdAt = "created_at", completedAt = "completed_at", etaSeconds = "eta_seconds"
        case playableOffline = "playable_offline", offlineURL = "offline_url"
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(url, forKey: .url)
        try c.encode(kind, forKey: .kind)
        try c.encodeIfPresent(file, forKey: .file)
        try c.encode(title, forKey: .title)
        try c.encode(state, forKey: .state)
        try c.encode(failure, forKey: .failure)
        try c.encode(reason, forKey: .reason)
        try c.encode(priority, forKey: .priority)
        try c.encode(window, forKey: .window)
        try c.encode(nextStart, forKey: .nextStart)
        try c.encode(rateLimit, forKey: .rateLimit)
        try c.encode(artwork, forKey: .artwork)
        try c.encode(expiresAt, forKey: .expiresAt)
        try c.encode(pinnedBytes, forKey: .pinnedBytes)
        try c.encode(keys, forKey: .keys)
        try c.encodeIfPresent(recording, forKey: .recording)
        try c.encode(createdAt, forKey: .createdAt)
        try c.encode(completedAt, forKey: .completedAt)
        try c.encode((rate * 10).rounded() / 10, forKey: .rate)
        try c.encode(etaSeconds.map { $0.rounded() }, forKey: .etaSeconds)
        try progress.encode(to: encoder)
        try c.encode(playableOffline, forKey: .playableOffline)
        try c.encode(offlineURL, forKey: .offlineURL)
        try c.encode(renditions, forKey: .renditions)
    }
}

/// What a file download holds: `length` (nil until the origin said) and `ranges`, each
/// `[start, end)` in bytes, sorted and merged: the range map a progress bar draws.
package struct FileHeld: Encodable {
    var length: Int?
    var ranges: [[Int]]

    private enum CodingKeys: String, CodingKey { case length, ranges }

    /// `length` is written as null while unknown, not left out: the schema requires it.
    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(length, forKey: .length)
        try c.encode(ranges, forKey: .ranges)
    }
}
