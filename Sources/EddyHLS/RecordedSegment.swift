/// One media segment of a live recording, with what it needs to be written into a playlist of
/// its own later (RFC 8216bis section 4.4.4): the key and map tags in effect for it, and its own
/// tags and URI line as the origin wrote them.
public struct RecordedSegment: Codable, Equatable, Sendable {
    /// Its Media Sequence Number (section 6.2.2: EXT-X-MEDIA-SEQUENCE plus its position).
    public var sequence: Int
    /// Its Discontinuity Sequence Number (section 4.4.3.3).
    public var discontinuitySequence: Int
    /// EXTINF's duration, seconds.
    public var duration: Double
    /// The EXT-X-KEY lines that apply to it (one per KEYFORMAT, section 4.4.4.4); empty when clear.
    public var keys: [String]
    /// The EXT-X-MAP line that applies to it.
    public var map: String?
    /// Its own tags (EXTINF, EXT-X-BYTERANGE, EXT-X-DISCONTINUITY, EXT-X-PROGRAM-DATE-TIME,
    /// EXT-X-GAP, EXT-X-BITRATE, EXT-X-DATERANGE) and, last, its URI line.
    public var lines: [String]
    /// Segments before it were lost (they left the live window between two reloads): the
    /// recording writes a discontinuity before it.
    public var missedBefore: Bool
    /// The origin's own Media Sequence Number, when the recording numbers the segment otherwise
    /// (the origin restarted its numbering, see `LiveRecording.merge`); nil when they are equal.
    /// Kept with each segment, so the numbering survives a crash that lost the header.
    public var originSequence: Int?

    public init(sequence: Int, discontinuitySequence: Int = 0, duration: Double, keys: [String] = [], map: String? = nil,
                lines: [String], missedBefore: Bool = false) {
        self.sequence = sequence
        self.discontinuitySequence = discontinuitySequence
        self.duration = duration
        self.keys = keys
        self.map = map
        self.lines = lines
        self.missedBefore = missedBefore
    }

    /// True when its own tags mark a discontinuity.
    var hasDiscontinuity: Bool { lines.contains("#EXT-X-DISCONTINUITY") }
}
