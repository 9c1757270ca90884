import ArgumentParser
import Foundation

/// `eddy download resume ID`.
struct DownloadResume: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "resume", abstract: "Resume a paused or failed download.")
    @OptionGroup var options: AdminOptions
    @Argument var id: String

    func run() throws {
        let body = try options.call("POST", "/api/downloads/\(id)/resume")
        print(DownloadText.line(DownloadText.object(body)))
    }
}
