import ArgumentParser
import Foundation

/// `eddy download ls`: every download, one line each.
struct DownloadList: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "ls", abstract: "List downloads.")
    @OptionGroup var options: AdminOptions
    @Flag(help: "Print the API's JSON.") var json = false

    func run() throws {
        let body = try options.call("GET", "/api/downloads")
        if json { return print(String(decoding: body, as: UTF8.self), terminator: "") }
        let list = (try? JSONSerialization.jsonObject(with: body) as? [[String: Any]]) ?? []
        if list.isEmpty { print("no downloads") }
        for j in list { print(DownloadText.line(j)) }
    }
}
