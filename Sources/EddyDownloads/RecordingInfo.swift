import EddyHLS

/// A live download's recording, as the API shows it (`recording` of a job; absent for VOD).
package struct RecordingInfo: Encodable, Equatable {
    /// True while some live rendition is still recorded.
    var active: Bool
    /// Why it ended: `endlist`, `duration`, `stalled` or `segment-limit`; nil while active.
    var ended: String?
    /// Media seconds recorded (of the longest recording) and the `duration` asked for.
    var mediaSeconds: Double
    var duration: Double?
    /// Segments that left the live window before a reload saw them, over all renditions.
    var missedSegments: Int
    /// Times the origin restarted its Media Sequence Numbers (the most of any rendition): the
    /// recording went on after a discontinuity each time.
    var originRestarts: Int

    enum CodingKeys: String, CodingKey {
        case active, ended, duration
        case mediaSeconds = "media_seconds", missedSegments = "missed_segments", originRestarts = "origin_restarts"
    }

    package init?(_ recordings: [LiveRecording]) {
        guard !recordings.isEmpty else { return nil }
        active = recordings.contains { !$0.hasEnded }
        ended = active ? nil : recordings.compactMap(\.header.ended).first?.rawValue
        mediaSeconds = ((recordings.map(\.header.mediaSeconds).max() ?? 0) * 1000).rounded() / 1000
        duration = recordings.first?.header.limit
        missedSegments = recordings.reduce(0) { $0 + $1.header.missed }
        originRestarts = recordings.map { $0.header.originRestarts ?? 0 }.max() ?? 0
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(active, forKey: .active)
        try c.encode(ended, forKey: .ended)
        try c.encode(mediaSeconds, forKey: .mediaSeconds)
        try c.encode(duration, forKey: .duration)
        try c.encode(missedSegments, forKey: .missedSegments)
        try c.encode(originRestarts, forKey: .originRestarts)
    }
}
