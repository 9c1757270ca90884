import ArgumentParser
import Foundation

/// `eddy download verify ID`: checks every block the download holds against its checksum; what
/// is missing or damaged is fetched again (or, with the origin unreachable, reported).
struct DownloadVerify: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify", abstract: "Check every stored block of a download; fetch again what is damaged or missing.",
        discussion: "Exit codes: 0 every file intact, 1 damage or missing files found (being fetched again; see the job's state), 2 no admin listener.")
    @OptionGroup var options: AdminOptions
    @Argument var id: String
    @Flag(help: "Print the API's JSON.") var json = false

    func run() throws {
        let body = try options.call("POST", "/api/downloads/\(id)/verify")
        let r = DownloadText.object(body)
        let damaged = r["damaged"] as? [String] ?? []
        if json {
            print(String(decoding: body, as: UTF8.self))
        } else {
            print("\(r["files_held"] ?? 0) of \(r["files"] ?? 0) files held, \(DownloadText.size(r["bytes_checked"] as? Int ?? 0)) checked")
            for name in damaged { print("damaged or missing: \(name)") }
            if !damaged.isEmpty { print("fetching again; the download is \(r["state"] ?? "?")") }
        }
        if !damaged.isEmpty { throw ExitCode(1) }
    }
}
