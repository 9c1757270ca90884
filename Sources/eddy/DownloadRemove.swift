import ArgumentParser
import Foundation

/// `eddy download rm ID`.
struct DownloadRemove: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "rm", abstract: "Cancel a download and delete what it stored.")
    @OptionGroup var options: AdminOptions
    @Argument var id: String

    func run() throws {
        let body = try options.call("DELETE", "/api/downloads/\(id)")
        print(DownloadText.line(DownloadText.object(body)))
    }
}
