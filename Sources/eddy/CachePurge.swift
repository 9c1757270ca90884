import ArgumentParser
import Foundation

/// `eddy cache purge URL` or `eddy cache purge --prefix P`: forget resources (the next request
/// fetches them again). Pinned ones (downloads) are kept.
struct CachePurge: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "purge", abstract: "Remove a resource, or every unpinned one under a prefix.")
    @OptionGroup var options: AdminOptions
    @Argument(help: "The upstream URL, or an eddy URL or path.") var url: String?
    @Option(help: "Purge every unpinned resource whose upstream URL starts with this.") var prefix: String?

    func validate() throws {
        guard (url == nil) != (prefix == nil) else { throw ValidationError("give a URL or --prefix, not both or neither") }
    }

    func run() throws {
        let path = url.map { "/api/resources/\(AdminOptions.segment($0))" } ?? "/api/resources?prefix=\(AdminOptions.query(prefix ?? ""))"
        let j = DownloadText.object(try options.call("DELETE", path))
        var line = "purged \(j["purged"] as? Int ?? 0)"
        if let kept = j["pinned_kept"] as? Int, kept > 0 { line += ", kept \(kept) pinned" }
        print(line)
    }
}
