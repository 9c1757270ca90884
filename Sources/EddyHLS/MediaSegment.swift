/// One media segment of a media playlist (RFC 8216bis section 4.4.4), with the tags that apply to
/// it: its duration, its byte range, its media initialization section and its key.
public struct MediaSegment: Sendable, Equatable {
    public var uri: String
    /// EXTINF's duration, seconds.
    public var duration: Double
    /// EXT-X-BYTERANGE, resolved to absolute offsets (a range without an offset follows the
    /// previous one of the same URI, section 4.4.4.2).
    public var byteRange: Range<Int>?
    /// EXT-X-MAP's URI and byte range.
    public var mapURI: String?
    public var mapByteRange: Range<Int>?
    /// EXT-X-KEY's METHOD (NONE, AES-128, SAMPLE-AES...) and URI.
    public var keyMethod: String?
    public var keyURI: String?
    /// EXT-X-GAP: the segment is missing at the origin and must not be fetched.
    public var isGap: Bool
}
