import ArgumentParser
import Foundation

extension Eddy {
    /// `eddy status`: is eddy up, how full is the cache, what is it fetching and downloading.
    struct StatusCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status", abstract: "Show whether eddy is ready, the cache, fills in flight and downloads.",
            discussion: "Exit status: 0 when eddy is ready, 1 when it answers but is not (draining), 2 when it can not be reached.")
        @OptionGroup var options: AdminOptions
        @Flag(help: "Print one JSON object.") var json = false

        func run() throws {
            let ready: (Int, Data)
            do { ready = try options.client.call("GET", "/readyz") } catch {
                throw options.unreachable(error)
            }
            let cache = DownloadText.object(try options.call("GET", "/api/cache"))
            let fills = DownloadText.object(try options.call("GET", "/api/fills"))["fills"] as? [[String: Any]] ?? []
            let downloads = (try? JSONSerialization.jsonObject(with: try options.call("GET", "/api/downloads"))) as? [[String: Any]] ?? []
            let state = DownloadText.object(ready.1)["status"] as? String ?? "unknown"
            if json {
                let all: [String: Any] = ["status": state, "cache": cache, "fills": fills, "downloads": downloads]
                let data = try JSONSerialization.data(withJSONObject: all, options: [.sortedKeys])
                print(String(decoding: data, as: UTF8.self))
            } else {
                print("eddy     \(state) at \(options.client.address)")
                let max = cache["max_bytes"] as? Int ?? 0
                print("cache    \(DownloadText.size(cache["bytes"] as? Int ?? 0))" + (max > 0 ? " of \(DownloadText.size(max))" : "")
                      + ", \(DownloadText.size(cache["pinned_bytes"] as? Int ?? 0)) pinned")
                print("fills    \(fills.count) in flight")
                for f in fills.prefix(10) {
                    print("         \(DownloadText.size(f["bytes"] as? Int ?? 0)) at \(DownloadText.size(Int(f["rate"] as? Double ?? 0)))/s  \(f["url"] as? String ?? "")")
                }
                let active = downloads.filter { ["running", "queued", "scheduled", "waiting-for-origin", "waiting-for-space"].contains($0["state"] as? String ?? "") }
                print("downloads \(downloads.count) (\(active.count) active)")
                for d in active.prefix(10) { print("         " + DownloadText.line(d)) }
            }
            if ready.0 != 200 { throw ExitCode(1) }
        }
    }
}
