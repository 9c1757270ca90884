import EddyHLS
import Foundation

/// The ffmpeg arguments that remux an exported HLS folder into one MP4 (`download export --mp4`):
/// the video and audio the multivariant playlist offers, copied, and each WebVTT subtitle
/// rendition as an MP4 text track (`mov_text`: the only subtitle format MP4 players read, and a
/// conversion of text, not a re-encoding of media).
///
/// ffmpeg's HLS demuxer does not expose subtitle renditions, so each subtitle playlist is read as
/// an input of its own. MP4 labels tracks with ISO 639-2 codes, and ffmpeg drops the two-letter
/// codes HLS's LANGUAGE usually carries (RFC 8216bis section 4.4.6.1 names BCP 47 tags), so
/// each language is given as its three-letter code.
struct MP4Remux {
    /// The export's root playlist, as written to the folder.
    let master: String
    /// Its path inside the folder.
    let masterPath: String
    let folder: String
    let output: String

    var arguments: [String] {
        let playlist = MultivariantPlaylist(master)
        let renditions = playlist.renditions
        let base = (masterPath as NSString).deletingLastPathComponent
        var inputs = ["-allowed_extensions", "ALL", "-i", folder + "/" + masterPath]
        var maps = MP4Remux.videoMaps(playlist.variants) + ["-map", "0:a?"]
        var labels: [String] = []
        var seenAudio = Set<String>()
        for r in renditions where r.type == .audio {
            // The demuxer copies LANGUAGE to the stream as it is: rename it by that value.
            guard let lang = r.language, seenAudio.insert(lang).inserted, let code = MP4Remux.alpha3(lang), code != lang else { continue }
            labels += ["-metadata:s:m:language:\(lang)", "language=\(code)"]
        }
        var subtitle = 0
        for r in renditions where r.type == .subtitles {
            guard let uri = r.uri, MP4Remux.isRelative(uri) else { continue }
            let path = base.isEmpty ? uri : base + "/" + uri
            guard FileManager.default.fileExists(atPath: folder + "/" + path) else { continue } // not held whole: not exported
            inputs += ["-allowed_extensions", "ALL", "-i", folder + "/" + path]
            maps += ["-map", "\(subtitle + 1):s?"]
            if let code = r.language.flatMap(MP4Remux.alpha3) { labels += ["-metadata:s:s:\(subtitle)", "language=\(code)"] }
            // MP4 keeps a track's name as its handler name (players show it; a "title" is dropped).
            labels += ["-metadata:s:s:\(subtitle)", "handler_name=\(r.name)"]
            subtitle += 1
        }
        return ["-hide_banner", "-loglevel", "error", "-y"] + inputs + maps + ["-c", "copy", "-c:s", "mov_text"] + labels + [output]
    }

    /// One video track per distinct video playlist. ffmpeg's HLS demuxer makes a program of each
    /// variant (its id is the variant's place in the playlist) and a stream of each variant's
    /// playlist, also when two variants name the same one (an auxiliary configuration that reuses
    /// the primary's video with other audio): `0:v` would copy that video twice.
    static func videoMaps(_ variants: [Variant]) -> [String] {
        guard !variants.isEmpty else { return ["-map", "0:v?"] } // a media playlist: its one video
        var seen = Set<String>()
        return variants.enumerated().flatMap { i, v in seen.insert(v.uri).inserted ? ["-map", "0:p:\(i):v?"] : [] }
    }

    /// The ISO 639-2 code of a BCP 47 tag's language ("en-GB" is "eng"); nil when it has none.
    static func alpha3(_ tag: String) -> String? {
        Locale.Language(identifier: tag).languageCode?.identifier(.alpha3)
    }

    /// A relative reference inside the folder (the export writes only those; checked again).
    static func isRelative(_ uri: String) -> Bool {
        !uri.contains(":") && !uri.contains("?") && DownloadExport.isSafe(uri)
    }
}
