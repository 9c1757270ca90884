import ArgumentParser
import Foundation

/// `eddy download show ID`: one download with its renditions.
struct DownloadShow: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Show a download and its renditions.")
    @OptionGroup var options: AdminOptions
    @Argument var id: String
    @Flag(help: "Print the API's JSON.") var json = false

    func run() throws {
        let body = try options.call("GET", "/api/downloads/\(id)")
        if json { return print(String(decoding: body, as: UTF8.self), terminator: "") }
        let j = DownloadText.object(body)
        print(DownloadText.line(j))
        print("    \(j["url"] as? String ?? "")")
        if let offline = j["offline_url"] as? String {
            print("    offline: \(offline)\((j["playable_offline"] as? Bool) == true ? "" : " (not playable offline yet)")")
        }
        for r in j["renditions"] as? [[String: Any]] ?? [] {
            let what = [r["type"] as? String, r["language"] as? String, r["name"] as? String].compactMap { $0 }.joined(separator: " ")
            print("    \(what.padding(toLength: 28, withPad: " ", startingAt: 0)) \(DownloadText.progress(r))")
        }
    }
}
