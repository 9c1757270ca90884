import EddyDASH
import Foundation

/// What a download brings in: an HLS asset (its playlists and the renditions chosen), an MPEG-DASH
/// asset (its MPD and the representations chosen) or one file
/// of any kind (an MP4, an MKV, an ISO), fetched as parallel byte ranges. Decided when the job is
/// added, by sniffing the URL's first bytes, and kept with the job.
package enum DownloadKind: String, Codable, Equatable, Sendable {
    case hls
    case dash
    case file

    /// Whether the first bytes of a body (and its media type) say HLS: a playlist must begin with
    /// `#EXTM3U` (RFC 8216 section 4.3.1.1); a UTF-8 byte order mark or white space before it is
    /// tolerated, as players do. A registered playlist type alone is enough too (RFC 8216 section 4).
    package static func sniff(prefix: [UInt8], contentType: String?) -> DownloadKind {
        let type = contentType?.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        if ["application/vnd.apple.mpegurl", "application/x-mpegurl", "audio/mpegurl", "audio/x-mpegurl"].contains(type) { return .hls }
        if MPDSniffer.isMPDType(contentType) || MPDSniffer.looksLikeMPD(prefix) { return .dash }
        var bytes = prefix[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        bytes = bytes.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0A }
        return bytes.starts(with: Array("#EXTM3U".utf8)) ? .hls : .file
    }

    /// Whether a URL's path names a playlist by its extension (`.m3u8`, `.m3u`): such a URL is read
    /// as HLS without a probe.
    package static func namesPlaylist(_ pathAndQuery: String) -> Bool {
        let path = pathAndQuery.split(separator: "?", maxSplits: 1).first.map(String.init) ?? ""
        let lower = path.lowercased()
        return lower.hasSuffix(".m3u8") || lower.hasSuffix(".m3u")
    }
}
