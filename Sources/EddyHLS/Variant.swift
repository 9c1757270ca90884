/// A variant stream (EXT-X-STREAM-INF and the URI line after it, RFC 8216bis section 4.4.6.2).
public struct Variant: Sendable, Equatable, Codable {
    /// Its position among the multivariant playlist's variants, from 0.
    public var index: Int
    public var uri: String
    /// BANDWIDTH: the peak segment bit rate, bits per second.
    public var bandwidth: Int
    public var averageBandwidth: Int?
    /// CODECS as listed; `videoCodecs` and `audioCodecs` split them by kind.
    public var codecs: [String]
    public var width: Int?
    public var height: Int?
    public var frameRate: Double?
    /// SDR, PQ or HLG (nil when not given, which means SDR for video).
    public var videoRange: String?
    /// NONE, TYPE-0 or TYPE-1.
    public var hdcpLevel: String?
    public var audioGroup: String?
    public var videoGroup: String?
    public var subtitlesGroup: String?
    /// The CLOSED-CAPTIONS group; nil also for NONE.
    public var closedCaptionsGroup: String?
    public var name: String?

    /// Reads an EXT-X-STREAM-INF tag's attributes and its URI; nil without a BANDWIDTH.
    public init?(index: Int, attributes a: AttributeList, uri: String) {
        guard let bw = a.integer("BANDWIDTH") else { return nil }
        self.index = index
        self.uri = uri
        bandwidth = bw
        averageBandwidth = a.integer("AVERAGE-BANDWIDTH")
        codecs = a.list("CODECS")
        if let r = a.resolution("RESOLUTION") { width = r.width; height = r.height }
        frameRate = a.decimal("FRAME-RATE")
        videoRange = a["VIDEO-RANGE"]
        hdcpLevel = a["HDCP-LEVEL"]
        audioGroup = a["AUDIO"]
        videoGroup = a["VIDEO"]
        subtitlesGroup = a["SUBTITLES"]
        let cc = a.pairs.first { $0.name == "CLOSED-CAPTIONS" }
        closedCaptionsGroup = cc?.quoted == true ? cc?.value : nil
        name = a["NAME"]
    }

    /// Video codecs of CODECS (avc1, avc3, hvc1, hev1, dvh1, dvhe, av01, vp09, mp4v...).
    public var videoCodecs: [String] { codecs.filter { Variant.kind(ofCodec: $0) == .video } }
    /// Audio codecs of CODECS (mp4a, ec-3, ac-3, ac-4, alac, fLaC, Opus, mp3...).
    public var audioCodecs: [String] { codecs.filter { Variant.kind(ofCodec: $0) == .audio } }

    /// Whether a CODECS entry names video or audio (by its sample entry, RFC 6381); subtitle
    /// formats (stpp, wvtt) and unknown ones are neither.
    public static func kind(ofCodec codec: String) -> RenditionType? {
        let fourCC = codec.split(separator: ".").first.map(String.init) ?? codec
        if videoFourCCs.contains(fourCC) { return .video }
        if audioFourCCs.contains(fourCC) { return .audio }
        return nil
    }

    static let videoFourCCs: Set<String> = ["avc1", "avc3", "hvc1", "hev1", "dvh1", "dvhe", "dva1", "dvav", "dav1", "av01", "vp09", "vp08", "mp4v", "avc2", "avc4", "vvc1", "vvi1"]
    static let audioFourCCs: Set<String> = ["mp4a", "ec-3", "ac-3", "ac-4", "alac", "fLaC", "Opus", "opus", "mhm1", "mhm2", "dtsc", "dtse", "dtsh", "dtsl", "dtsx", ".mp3", "mp3"]
}
