import ArgumentParser
import EddyCore
import Foundation

/// `eddy cache ls [PREFIX]`: cached resources, a page at a time or all of them.
struct CacheList: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "ls", abstract: "List cached resources whose URL starts with PREFIX.")
    @OptionGroup var options: AdminOptions
    @Argument(help: "Upstream URL prefix (e.g. http://cdn.example.com/show/).") var prefix = ""
    @Option(help: "key, bytes or last_access.") var sort = "key"
    @Option(help: "At most this many (1-1000).") var limit = 100
    @Flag(help: "Every page, not just the first.") var all = false
    @Flag(help: "Print the API's JSON (with --all, one document holding every page's resources).") var json = false

    func run() throws {
        var cursor: String?
        // With --all --json: every page's items in one document (pages run together parse as none).
        var every: [Any] = []
        if !json { print("CACHED      LENGTH      PIN  LAST ACCESS           URL") }
        repeat {
            var path = "/api/resources?prefix=\(AdminOptions.query(prefix))&sort=\(AdminOptions.query(sort))&limit=\(limit)"
            if let cursor { path += "&cursor=\(AdminOptions.query(cursor))" }
            let body = try options.call("GET", path)
            let j = DownloadText.object(body)
            cursor = all ? j["next_cursor"] as? String : nil
            if json && all {
                every += j["resources"] as? [Any] ?? []
                continue
            }
            if json { print(String(decoding: body, as: UTF8.self), terminator: ""); continue }
            for r in j["resources"] as? [[String: Any]] ?? [] {
                let len = (r["length"] as? Int).map(DownloadText.size) ?? "?"
                let when = (r["last_access"] as? Int).map { CacheList.time($0) } ?? "-"
                print(CacheList.pad(DownloadText.size(r["cached_bytes"] as? Int ?? 0), 12) + CacheList.pad(len, 12)
                      + CacheList.pad((r["pinned"] as? Bool ?? false) ? "yes" : "", 5) + CacheList.pad(when, 22) + (r["key"] as? String ?? ""))
            }
        } while cursor != nil
        if json && all {
            let data = try JSONSerialization.data(withJSONObject: ["resources": every, "next_cursor": NSNull()], options: [.sortedKeys])
            print(String(decoding: data, as: UTF8.self))
        }
    }

    static func pad(_ s: String, _ n: Int) -> String { s.padding(toLength: max(n, s.count + 1), withPad: " ", startingAt: 0) }

    static func time(_ unix: Int) -> String { ISO8601Time.format(unix) }
}
