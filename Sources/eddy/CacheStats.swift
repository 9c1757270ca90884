import ArgumentParser
import Foundation

/// `eddy cache stats`: the cache's size against its limit, and what is pinned.
struct CacheStats: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "stats", abstract: "Show the cache's size, limit and pinned bytes.")
    @OptionGroup var options: AdminOptions
    @Flag(help: "Print the API's JSON.") var json = false

    func run() throws {
        let body = try options.call("GET", "/api/cache")
        if json { return print(String(decoding: body, as: UTF8.self), terminator: "") }
        let j = DownloadText.object(body)
        let bytes = j["bytes"] as? Int ?? 0, max = j["max_bytes"] as? Int ?? 0, pinned = j["pinned_bytes"] as? Int ?? 0
        print("cached   \(DownloadText.size(bytes))" + (max > 0 ? String(format: " of %@ (%.1f%%)", DownloadText.size(max), Double(bytes) / Double(max) * 100) : " (no limit)"))
        print("pinned   \(DownloadText.size(pinned))")
    }
}
