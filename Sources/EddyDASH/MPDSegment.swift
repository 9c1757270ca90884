/// One fetch a representation lists: a media segment or an initialization segment, by absolute
/// URL and, for SegmentList and SegmentBase, a byte range of it (ISO/IEC 23009-1 section 5.3.9).
public struct MPDSegment: Equatable, Sendable {
    /// The absolute URL (the representation's BaseURL applied).
    public let url: String
    /// Media time from the start of the presentation, in seconds (0 for an initialization segment).
    public let start: Double
    /// Seconds of media (0 for an initialization segment).
    public let duration: Double
    /// Inclusive byte range within `url`, when the MPD gives one.
    public let byteRange: ClosedRange<Int>?

    public init(url: String, start: Double = 0, duration: Double = 0, byteRange: ClosedRange<Int>? = nil) {
        (self.url, self.start, self.duration, self.byteRange) = (url, start, duration, byteRange)
    }

    /// `"500-999"` as a range (section 5.3.9.5.3 `mediaRange`, RFC 9110 byte-range form without the unit).
    static func range(_ text: String?) -> ClosedRange<Int>? {
        guard let text else { return nil }
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let a = Int(parts[0]), let b = Int(parts[1]), a >= 0, b >= a else { return nil }
        return a...b
    }
}
