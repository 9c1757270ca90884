import ArgumentParser
import Foundation

extension Eddy {
    /// `eddy variants URL`: what an HLS asset offers, as a table or the API's JSON.
    struct VariantsCommand: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "variants",
                                                        abstract: "List an HLS asset's variants and renditions (through a running eddy).")
        @OptionGroup var options: AdminOptions
        @Argument(help: "The multivariant playlist: an origin URL eddy may fetch, or an eddy URL.")
        var url: String
        @Flag(help: "Print the API's JSON.") var json = false

        func run() throws {
            let q = url.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~/:"))) ?? url
            let body = try options.call("GET", "/api/variants?url=\(q)")
            if json { return print(String(decoding: body, as: UTF8.self), terminator: "") }
            let j = DownloadText.object(body)
            var rows = [["#", "BANDWIDTH", "AVERAGE", "RESOLUTION", "FPS", "RANGE", "HDCP", "VIDEO", "AUDIO", "GROUPS", "DURATION", "SIZE"]]
            for v in j["variants"] as? [[String: Any]] ?? [] {
                let groups = [("a", v["audio"]), ("s", v["subtitles"]), ("cc", v["closed_captions"])]
                    .compactMap { k, g in (g as? String).map { "\(k):\($0)" } }.joined(separator: " ")
                let size = (v["size"] as? Int).map { ((v["size_exact"] as? Bool) == true ? "" : "~") + DownloadText.size($0) } ?? "-"
                rows.append(["\(v["index"] as? Int ?? 0)", "\(v["bandwidth"] as? Int ?? 0)", (v["average_bandwidth"] as? Int).map(String.init) ?? "-",
                             v["resolution"] as? String ?? "-", (v["frame_rate"] as? Double).map { String(format: "%g", $0) } ?? "-",
                             v["video_range"] as? String ?? "-", v["hdcp_level"] as? String ?? "-",
                             (v["video_codecs"] as? [String] ?? []).joined(separator: ","), (v["audio_codecs"] as? [String] ?? []).joined(separator: ","),
                             groups, (v["duration"] as? Double).map { String(format: "%.1fs", $0) } ?? "-", size])
            }
            VariantsCommand.table(rows)
            print("")
            var media = [["TYPE", "GROUP", "LANGUAGE", "NAME", "DEFAULT", "AUTOSELECT", "FORCED", "CHANNELS", "CHARACTERISTICS"]]
            for r in j["renditions"] as? [[String: Any]] ?? [] {
                let yes = { (k: String) in (r[k] as? Bool) == true ? "yes" : "no" }
                media.append([r["type"] as? String ?? "", r["group_id"] as? String ?? "", r["language"] as? String ?? "-", r["name"] as? String ?? "",
                              yes("default"), yes("autoselect"), yes("forced"), r["channels"] as? String ?? "-",
                              (r["characteristics"] as? [String] ?? []).joined(separator: ",")])
            }
            VariantsCommand.table(media)
        }

        /// Prints rows as columns padded to their widest cell.
        static func table(_ rows: [[String]]) {
            let widths = rows[0].indices.map { i in rows.map { $0[i].count }.max() ?? 0 }
            for row in rows {
                print(row.enumerated().map { i, c in c.padding(toLength: widths[i], withPad: " ", startingAt: 0) }
                    .joined(separator: "  ").trimmingCharacters(in: .whitespaces))
            }
        }
    }
}
