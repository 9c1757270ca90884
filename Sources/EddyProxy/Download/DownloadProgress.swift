/// A download's progress as the API shows it (`GET /api/downloads/{id}`, the SSE stream, the
/// CLI). Field names are fixed: scripts rely on them. Done counts never go backwards, across
/// retries and restarts; bytes expected are estimated (`bytes_exact` false) until every unit's
/// length is known.
struct DownloadProgress: Encodable, Equatable {
    var segmentsDone = 0
    var segmentsTotal = 0
    var bytesDone = 0
    var bytesExpected = 0
    var bytesExact = true
    var mediaSecondsDone = 0.0
    var mediaSecondsTotal = 0.0
    /// Media time ranges whose segments are all stored, [start, end] seconds.
    var loadedTimeRanges: [[Double]] = []

    enum CodingKeys: String, CodingKey {
        case segmentsDone = "segments_done", segmentsTotal = "segments_total"
        case bytesDone = "bytes_done", bytesExpected = "bytes_expected", bytesExact = "bytes_exact"
        case mediaSecondsDone = "media_seconds_done", mediaSecondsTotal = "media_seconds_total"
        case loadedTimeRanges = "loaded_time_ranges"
    }

    /// Keeps done counts at least where `floor` had them (a restart or a retry must not show less).
    mutating func keepAtLeast(_ floor: DownloadProgress) {
        segmentsDone = max(segmentsDone, floor.segmentsDone)
        bytesDone = max(bytesDone, floor.bytesDone)
        mediaSecondsDone = max(mediaSecondsDone, floor.mediaSecondsDone)
        bytesExpected = max(bytesExpected, bytesDone)
    }

    /// Adds a segment's media interval to the loaded ranges (kept sorted and merged).
    mutating func addLoaded(_ start: Double, _ end: Double) {
        if let last = loadedTimeRanges.last, abs(last[1] - start) < 0.001 {
            loadedTimeRanges[loadedTimeRanges.count - 1][1] = end
        } else {
            loadedTimeRanges.append([start, end])
        }
    }
}

/// One rendition of a download, for the API.
struct RenditionProgress: Encodable {
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

    func encode(to encoder: any Encoder) throws {
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

/// A download as the API shows it.
struct DownloadInfo: Encodable {
    var id: String
    var url: String
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
    var renditions: [RenditionProgress]

    enum CodingKeys: String, CodingKey {
        case id, url, title, state, failure, rate, renditions
        case createdAt = "created_at", completedAt = "completed_at", etaSeconds = "eta_seconds"
        case playableOffline = "playable_offline"
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(url, forKey: .url)
        try c.encode(title, forKey: .title)
        try c.encode(state, forKey: .state)
        try c.encode(failure, forKey: .failure)
        try c.encode(createdAt, forKey: .createdAt)
        try c.encode(completedAt, forKey: .completedAt)
        try c.encode((rate * 10).rounded() / 10, forKey: .rate)
        try c.encode(etaSeconds.map { $0.rounded() }, forKey: .etaSeconds)
        try progress.encode(to: encoder)
        try c.encode(playableOffline, forKey: .playableOffline)
        try c.encode(renditions, forKey: .renditions)
    }
}
