/// The variant attributes a predicate may test, named as AVAssetVariant's properties are, and
/// what each reads from a variant (RFC 8216bis section 4.4.6.2).
public enum VariantAttribute: String, CaseIterable, Sendable {
    case peakBitRate, averageBitRate, width, height, frameRate, videoRange, videoCodec, audioCodec, channels, hdcp

    /// How an attribute is compared: numbers order, codecs match by prefix, words by equality.
    enum Kind { case number, codec, word }

    var kind: Kind {
        switch self {
        case .peakBitRate, .averageBitRate, .width, .height, .frameRate, .channels: return .number
        case .videoCodec, .audioCodec: return .codec
        case .videoRange, .hdcp: return .word
        }
    }

    /// The attribute's values for `v`: one number, one word, or the codecs of its kind; empty
    /// when the playlist does not say (a comparison with nothing is false; `!=` is true).
    /// `channels` is the most channels among the renditions of the variant's audio group.
    func values(of v: Variant, channels: Int?) -> [PredicateValue] {
        func n(_ x: Int?) -> [PredicateValue] { x.map { [.number(Double($0))] } ?? [] }
        switch self {
        case .peakBitRate: return n(v.bandwidth)
        case .averageBitRate: return n(v.averageBandwidth)
        case .width: return n(v.width)
        case .height: return n(v.height)
        case .frameRate: return v.frameRate.map { [.number($0)] } ?? []
        case .channels: return n(channels)
        // A variant with video and no VIDEO-RANGE is SDR (section 4.4.6.2); HDCP-LEVEL absent is NONE.
        case .videoRange:
            if let r = v.videoRange { return [.word(r)] }
            return v.videoCodecs.isEmpty && v.height == nil ? [] : [.word("SDR")]
        case .hdcp: return [.word(v.hdcpLevel ?? "NONE")]
        case .videoCodec: return v.videoCodecs.map { .word($0) }
        case .audioCodec: return v.audioCodecs.map { .word($0) }
        }
    }
}

/// A literal in a predicate, or an attribute's value.
public enum PredicateValue: Equatable, Sendable {
    case number(Double)
    case word(String)
}
