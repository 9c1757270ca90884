import ArgumentParser
import EddyHLS
import Foundation

/// `eddy download add-media ID --audio de --subtitles fr`: adds renditions to a download
/// (`PATCH /api/downloads/{id}`); only what is not stored yet is fetched.
struct DownloadAddMedia: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "add-media", abstract: "Add audio or subtitle renditions to a download.")
    @OptionGroup var options: AdminOptions
    @Argument var id: String
    @Option(help: "Audio renditions to add: languages, name:, char:, channels: (comma-separated).")
    var audio: String?
    @Option(help: "Subtitle renditions to add, as --audio.")
    var subtitles: String?

    func validate() throws {
        guard audio != nil || subtitles != nil else { throw ValidationError("give --audio or --subtitles") }
    }

    func run() throws {
        var body: [String: [String]] = [:]
        if let audio { body["audio"] = DownloadConfiguration.list(audio) }
        if let subtitles { body["subtitles"] = DownloadConfiguration.list(subtitles) }
        let answer = try options.call("PATCH", "/api/downloads/\(id)", json: JSONEncoder().encode(body))
        print(DownloadText.line(DownloadText.object(answer)))
    }
}
