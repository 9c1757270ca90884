/// A Representation with what the selection language reads (section 5.3.5) and the segments it
/// lists, its inherited attributes applied (an AdaptationSet's `codecs`, `lang`, `mimeType`).
public struct MPDRepresentation: Equatable, Sendable {
    public var id: String
    /// `@bandwidth`, bits per second: `peakBitRate` in the selection language.
    public var bandwidth: Int?
    public var width: Int?
    public var height: Int?
    /// `@frameRate` as written (`25`, `30000/1001`).
    public var frameRate: String?
    public var codecs: String?
    public var mimeType: String?
    /// The AdaptationSet's `@contentType` (`video`, `audio`, `text`), or the mime type's top level.
    public var contentType: String?
    public var lang: String?
    /// Audio channels (AudioChannelConfiguration, section 5.8.4.7): `channels` in the selection language.
    public var channels: Int?
    /// `PQ`, `HLG` or `SDR` from the transfer characteristics property (ISO/IEC 23001-8 codes 16,
    /// 18, and 1/6/13-15): `videoRange`.
    public var videoRange: String?
    /// The adaptation set's and representation's Role values (`urn:mpeg:dash:role:2011`, section 5.8.5.5).
    public var roles: [String] = []
    /// The initialization segment, when the representation has one.
    public var initialization: MPDSegment?
    /// Media segments in presentation order.
    public var segments: [MPDSegment]

    public init(id: String, bandwidth: Int? = nil, width: Int? = nil, height: Int? = nil, frameRate: String? = nil,
                codecs: String? = nil, mimeType: String? = nil, contentType: String? = nil, lang: String? = nil,
                initialization: MPDSegment? = nil, segments: [MPDSegment] = []) {
        (self.id, self.bandwidth, self.width, self.height, self.frameRate) = (id, bandwidth, width, height, frameRate)
        (self.codecs, self.mimeType, self.contentType, self.lang) = (codecs, mimeType, contentType, lang)
        (self.initialization, self.segments) = (initialization, segments)
    }
}
