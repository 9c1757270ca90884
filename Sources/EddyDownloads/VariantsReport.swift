import EddyHLS

/// What `GET /api/variants?url=` and `eddy variants` show of a multivariant playlist: every
/// variant with its attributes, duration and size, and every rendition. Field names are fixed.
package struct VariantsReport: Encodable {
    struct VariantRow: Encodable {
        var index: Int
        var uri: String
        var bandwidth: Int
        var averageBandwidth: Int?
        var codecs: [String]
        var videoCodecs: [String]
        var audioCodecs: [String]
        var resolution: String?
        var frameRate: Double?
        var videoRange: String?
        var hdcpLevel: String?
        var audio: String?
        var subtitles: String?
        var closedCaptions: String?
        /// Seconds (sum of EXTINF), nil when the media playlist could not be read.
        var duration: Double?
        /// Bytes: exact from EXT-X-BYTERANGE, otherwise AVERAGE-BANDWIDTH (or BANDWIDTH) x duration.
        var size: Int?
        var sizeExact: Bool

        enum CodingKeys: String, CodingKey {
            case index, uri, bandwidth, codecs, resolution, audio, subtitles, duration, size
            case averageBandwidth = "average_bandwidth", videoCodecs = "video_codecs", audioCodecs = "audio_codecs"
            case frameRate = "frame_rate", videoRange = "video_range", hdcpLevel = "hdcp_level"
            case closedCaptions = "closed_captions", sizeExact = "size_exact"
        }
    }

    struct RenditionRow: Encodable {
        var type: String
        var groupID: String
        var language: String?
        var name: String
        var isDefault: Bool
        var autoselect: Bool
        var forced: Bool
        var channels: String?
        var characteristics: [String]
        var uri: String?

        enum CodingKeys: String, CodingKey {
            case type, language, name, autoselect, forced, channels, characteristics, uri
            case groupID = "group_id", isDefault = "default"
        }
    }

    var url: String
    var variants: [VariantRow]
    var renditions: [RenditionRow]

    /// The report for `playlist`, with the media playlists read so far by variant index.
    package init(url: String, playlist: MultivariantPlaylist, media: [Int: MediaPlaylist]) {
        self.url = url
        variants = playlist.variants.map { v in
            let m = media[v.index]
            let duration = m?.duration
            let exact = m?.exactBytes
            // AVERAGE-BANDWIDTH is the average segment bit rate (RFC 8216bis section 4.4.6.2), so
            // it times the duration estimates the bytes; BANDWIDTH, the peak, overstates them.
            let estimate = duration.map { Int(Double(v.averageBandwidth ?? v.bandwidth) / 8 * $0) }
            return VariantRow(index: v.index, uri: v.uri, bandwidth: v.bandwidth, averageBandwidth: v.averageBandwidth,
                              codecs: v.codecs, videoCodecs: v.videoCodecs, audioCodecs: v.audioCodecs,
                              resolution: v.width.flatMap { w in v.height.map { "\(w)x\($0)" } }, frameRate: v.frameRate,
                              videoRange: v.videoRange, hdcpLevel: v.hdcpLevel, audio: v.audioGroup, subtitles: v.subtitlesGroup,
                              closedCaptions: v.closedCaptionsGroup, duration: duration, size: exact ?? estimate, sizeExact: exact != nil)
        }
        renditions = playlist.renditions.map { r in
            RenditionRow(type: r.type.rawValue, groupID: r.groupID, language: r.language, name: r.name, isDefault: r.isDefault,
                         autoselect: r.autoselect, forced: r.forced, channels: r.channels, characteristics: r.characteristics, uri: r.uri)
        }
    }
}
