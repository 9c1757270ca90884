import ArgumentParser
import Foundation

/// `eddy download pause ID`.
struct DownloadPause: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "pause", abstract: "Pause a download (requests in flight stop).")
    @OptionGroup var options: AdminOptions
    @Argument var id: String

    func run() throws {
        let body = try options.call("POST", "/api/downloads/\(id)/pause")
        print(DownloadText.line(DownloadText.object(body)))
    }
}
