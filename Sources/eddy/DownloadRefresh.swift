import ArgumentParser
import Foundation

/// `eddy download refresh ID`: asks the origin what changed since the download was made. An HLS
/// download reads its multivariant playlist again and adds what its selection now picks (a better
/// variant, a new language it asked for); a file download checks its validator and, when the
/// file changed, fetches the new version beside the old one, which it replaces once whole.
struct DownloadRefresh: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "refresh", abstract: "Add what the origin gained since: a better variant, a new language, a file's new version.",
        discussion: "Nothing held is fetched again. Exit codes: 0 checked (changed or not), 1 the origin could not be asked or the download cannot be refreshed now, 2 no admin listener.")
    @OptionGroup var options: AdminOptions
    @Argument var id: String
    @Flag(help: "Print the API's JSON.") var json = false

    func run() throws {
        let body = try options.call("POST", "/api/downloads/\(id)/refresh")
        if json { return print(String(decoding: body, as: UTF8.self)) }
        let r = DownloadText.object(body)
        print("\(id): \(r["detail"] ?? "")")
        for uri in r["added"] as? [String] ?? [] { print("added: \(uri)") }
        for uri in r["kept"] as? [String] ?? [] { print("kept: \(uri)") }
        if let length = r["length"] as? Int { print("length: \(DownloadText.size(length))") }
    }
}
