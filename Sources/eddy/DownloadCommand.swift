import ArgumentParser
import EddyProxy
import Foundation

extension Eddy {
    /// `eddy download`: offline HLS downloads, through a running eddy's admin API.
    struct DownloadCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "download",
            abstract: "Download HLS assets for offline playback (talks to a running eddy's admin API).",
            subcommands: [DownloadAdd.self, DownloadList.self, DownloadShow.self, DownloadPause.self, DownloadResume.self, DownloadRemove.self,
                          DownloadAddMedia.self, DownloadExport.self, DownloadVerify.self, DownloadRefresh.self]
        )
    }
}

/// Where the admin API is: `--admin HOST:PORT`, else the config file's `admin`, else 127.0.0.1:9090.
struct AdminOptions: ParsableArguments {
    @Option(name: .long, help: "eddy's admin listener, HOST:PORT. (default: admin: of --config, or 127.0.0.1:9090)")
    var admin: String?

    @Option(name: .long, help: "The admin listener's bearer token. (default: EDDY_ADMIN_TOKEN, or admin_token: of --config)")
    var adminToken: String?

    @Option(name: .long, help: "Config file to read admin: and admin_token: from.")
    var config = "config/eddy.yaml"

    var client: AdminClient {
        let file = (try? String(contentsOfFile: config, encoding: .utf8)).flatMap { try? ConfigFile.apply(yaml: $0, to: ProxyConfig()) }
        let token = adminToken ?? ProcessInfo.processInfo.environment["EDDY_ADMIN_TOKEN"] ?? file?.adminToken
        if let admin { return AdminClient(address: admin, token: token) }
        if let a = file?.admin { return AdminClient(address: "\(a.host):\(a.port)", token: token) }
        return AdminClient(address: "\(ProxyConfig.defaultAdmin.host):\(ProxyConfig.defaultAdmin.port)", token: token)
    }

    /// Prints why the admin listener could not be reached, once, with what to do, and returns
    /// exit status 2 (scripts tell "down" from "said no").
    func unreachable(_ error: Error) -> ExitCode {
        FileHandle.standardError.write(Data(("eddy: cannot reach eddy's admin listener at \(client.address): \(error). "
            + "`eddy serve` opens it on \(ProxyConfig.defaultAdmin.host):\(ProxyConfig.defaultAdmin.port) unless started with --no-admin; "
            + "if it was started with --admin HOST:PORT, pass the same --admin here.\n").utf8))
        return ExitCode(2)
    }

    /// Calls the API; prints the error line and exits 1 on a 4xx/5xx answer.
    func call(_ method: String, _ path: String, json: Data? = nil) throws -> Data {
        let status: Int, body: Data
        do { (status, body) = try client.call(method, path, json: json) } catch {
            // Exit 2: eddy is not there (scripts tell "down" from "said no").
            throw unreachable(error)
        }
        guard (200..<300).contains(status) else {
            let message = (try? JSONSerialization.jsonObject(with: body) as? [String: Any])?["error"] as? String
            FileHandle.standardError.write(Data("eddy: \(status): \(message ?? String(decoding: body, as: UTF8.self))\n".utf8))
            throw ExitCode(1)
        }
        return body
    }
}

extension AdminOptions {
    /// `text` as one path segment of an API URL (a cache key is a whole URL).
    static func segment(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    /// `text` as a query value.
    static func query(_ text: String) -> String { segment(text) }
}

/// Text renderings of a download's JSON for the terminal.
enum DownloadText {
    static func object(_ data: Data) -> [String: Any] { (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:] }

    static func size(_ n: Int) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var v = Double(n), i = 0
        while v >= 1000 && i < units.count - 1 { v /= 1000; i += 1 }
        return i == 0 ? "\(n) B" : String(format: "%.1f %@", v, units[i])
    }

    /// `42.0% 12.3 MB of ~29.1 MB, 13/40 segments, 1.2 MB/s, ETA 14 s`
    static func progress(_ j: [String: Any]) -> String {
        let done = j["bytes_done"] as? Int ?? 0, expected = j["bytes_expected"] as? Int ?? 0
        let exact = j["bytes_exact"] as? Bool ?? false
        let pct = expected > 0 ? Double(done) / Double(expected) * 100 : 0
        var s = String(format: "%5.1f%% ", pct) + "\(size(done)) of \(exact ? "" : "~")\(size(expected)), "
        s += "\(j["segments_done"] as? Int ?? 0)/\(j["segments_total"] as? Int ?? 0) segments"
        if let rate = j["rate"] as? Double, rate > 0 { s += ", \(size(Int(rate)))/s" }
        if let eta = j["eta_seconds"] as? Double { s += ", ETA \(Int(eta)) s" }
        return s
    }

    static func line(_ j: [String: Any]) -> String {
        let id = j["id"] as? String ?? "?", state = j["state"] as? String ?? "?"
        let name = (j["title"] as? String) ?? (j["url"] as? String ?? "")
        var s = "\(id)  \(state.padding(toLength: 18, withPad: " ", startingAt: 0)) \(progress(j))  \(name)"
        if let f = j["failure"] as? String { s += "\n    failed: \(f)" }
        return s
    }
}
