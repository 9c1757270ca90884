import ArgumentParser
import EddyDownloads
import EddyHLS
import EddyProxy
import Foundation
import Glibc

/// `eddy download add URL ...`: starts a download; `--wait` follows it to the end.
struct DownloadAdd: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "add", abstract: "Start downloading an HLS asset or any file.")

    @OptionGroup var options: AdminOptions
    @Argument(help: "An HLS asset's multivariant (or media) playlist, or any file: an origin URL eddy may fetch, or an eddy URL.")
    var url: String?
    @Option(help: "Read downloads from this file (- for stdin): a URL per line, then that line's options; # starts a comment.")
    var from: String?
    @Option(help: "Variant qualifier, e.g. 'videoRange == PQ && peakBitRate < 5000000' or 'height <= 720 lowest'.")
    var variant: String?
    @Option(name: .customLong("variant-index"), help: "Take variant N of the playlist.")
    var variantIndex: Int?
    @Option(help: "Audio renditions: languages, name:, char:, channels:, all or none (comma-separated).")
    var audio: String?
    @Option(help: "Subtitle renditions, as --audio.")
    var subtitles: String?
    @Option(help: "An auxiliary configuration, e.g. 'channels >= 6; audio=en' (repeatable).")
    var aux: [String] = []
    @Option(help: "A title to show.")
    var title: String?
    @Option(help: "normal (default) or important: important downloads get slots and space first.")
    var priority: String?
    @Option(help: "When the download is released (unpinned): a duration like 7d, 12h, 30m, or a date like 2026-12-24.")
    var expires: String?
    @Option(help: "For a live or EVENT stream: the media time to record, like 20s, 30m, 2h (default: until the stream ends).")
    var duration: String?
    @Option(help: "When it may run, in local time, like 01:00-06:00 (it may cross midnight; default: download_window).")
    var window: String?
    @Option(help: "The most bytes a second it may fetch, like 2M or 500K (besides download_rate_limit).")
    var rate: String?
    @Option(help: "Artwork to show with it: a PNG or JPEG file (at most 1 MiB), or a URL eddy may fetch.")
    var artwork: String?
    @Flag(help: "Follow the download until it ends, with a progress bar on a terminal.")
    var wait = false

    func validate() throws {
        guard (url == nil) != (from == nil) else { throw ValidationError("give a URL or --from FILE, not both") }
        if from != nil && wait { throw ValidationError("--wait follows one download: not with --from") }
    }

    /// `--artwork`: a file is sent as a data: URI; anything else is a URL for eddy to fetch.
    private func artworkValue() throws -> String? {
        guard let artwork else { return nil }
        guard FileManager.default.fileExists(atPath: artwork) else { return artwork }
        guard let data = FileManager.default.contents(atPath: artwork) else { throw ValidationError("--artwork \(artwork): cannot be read") }
        guard data.count <= 1 << 20 else { throw ValidationError("--artwork \(artwork): \(data.count) bytes; at most 1 MiB") }
        return "data:application/octet-stream;base64," + data.base64EncodedString()
    }

    /// What this command asks for, as the API's JSON says it.
    func spec() throws -> DownloadSpec {
        var spec = DownloadSpec(url: url ?? "", title: title, variant: variant, variantIndex: variantIndex,
                                audio: audio.map { DownloadConfiguration.list($0) }, subtitles: subtitles.map { DownloadConfiguration.list($0) },
                                priority: priority, expires: expires, duration: duration, window: window, rate: rate, artwork: try artworkValue())
        if !aux.isEmpty {
            spec.auxiliary = try aux.map { text in
                do {
                    // Parsed here to report errors with their position; the API takes the text.
                    let c = try DownloadConfiguration.parseAuxiliary(text)
                    let predicates = DownloadConfiguration.auxiliaryPredicates(text)
                    guard predicates.count <= 1 else { throw ValidationError("--aux '\(text)': one variant predicate per configuration") }
                    return DownloadSpec.Auxiliary(variant: predicates.first, variantIndex: c.variantIndex, audio: c.audio, subtitles: c.subtitles)
                } catch let e as PredicateSyntaxError {
                    throw ValidationError("--aux '\(text)': position \(e.position): \(e.message)")
                }
            }
        }
        return spec
    }

    func run() throws {
        if let from { return try DownloadAddList(path: from, options: options).run() }
        let body = try options.call("POST", "/api/downloads", json: JSONEncoder().encode(spec()))
        let j = DownloadText.object(body)
        let id = j["id"] as? String ?? ""
        print(id)
        guard wait else { return }
        let tty = isatty(1) != 0
        var last: [String: Any] = j
        var lastPrinted = 0.0
        try options.client.events("/api/downloads/\(id)/events") { data in
            let e = DownloadText.object(data)
            last = e
            let now = Date().timeIntervalSince1970
            if tty {
                print("\r\u{1b}[2K" + bar(e) + " " + DownloadText.progress(e), terminator: "")
                fflush(stdout)
            } else if now - lastPrinted >= 1 || (e["state"] as? String).map({ ["completed", "failed", "cancelled"].contains($0) }) == true {
                lastPrinted = now
                print("\(e["state"] as? String ?? "?") \(DownloadText.progress(e))")
            }
        }
        if tty { print("") }
        let state = last["state"] as? String ?? "?"
        print(state + ((last["failure"] as? String).map { ": \($0)" } ?? ""))
        if state != "completed" { throw ExitCode(1) }
    }

    private func bar(_ e: [String: Any]) -> String {
        let done = e["bytes_done"] as? Int ?? 0, expected = max(1, e["bytes_expected"] as? Int ?? 1)
        let filled = min(30, done * 30 / expected)
        return "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: 30 - filled) + "]"
    }
}
