import ArgumentParser
import Foundation

/// `eddy cache pin URL`: keep a resource through eviction.
struct CachePin: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "pin", abstract: "Keep a cached resource through eviction.")
    @OptionGroup var options: AdminOptions
    @Argument(help: "The upstream URL, or an eddy URL or path.") var url: String

    func run() throws {
        let j = DownloadText.object(try options.call("POST", "/api/resources/\(AdminOptions.segment(url))/pin"))
        print("pinned \(j["key"] as? String ?? url)")
    }
}
