/// A download's progress as the API shows it (`GET /api/downloads/{id}`, the SSE stream, the
/// CLI). Field names are fixed: scripts rely on them. Done counts never go backwards, across
/// retries and restarts; bytes expected are estimated (`bytes_exact` false) until every unit's
/// length is known.
package struct DownloadProgress: Encodable, Equatable {
    var segmentsDone = 0
    var segmentsTotal = 0
    package var bytesDone = 0
    package var bytesExpected = 0
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
