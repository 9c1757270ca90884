import ArgumentParser
import Foundation

/// `eddy cache unpin URL`: let eviction take a resource again.
struct CacheUnpin: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "unpin", abstract: "Let eviction take a cached resource again.")
    @OptionGroup var options: AdminOptions
    @Argument(help: "The upstream URL, or an eddy URL or path.") var url: String

    func run() throws {
        let j = DownloadText.object(try options.call("POST", "/api/resources/\(AdminOptions.segment(url))/unpin"))
        print("unpinned \(j["key"] as? String ?? url)")
    }
}
