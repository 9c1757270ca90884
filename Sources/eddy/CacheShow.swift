import ArgumentParser
import Foundation

/// `eddy cache show URL`: one resource and its range map, `[####....##]` plus the ranges.
struct CacheShow: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Show which bytes of a resource are cached.")
    @OptionGroup var options: AdminOptions
    @Argument(help: "The upstream URL, or an eddy URL or path.") var url: String
    @Flag(help: "Print the API's JSON.") var json = false

    func run() throws {
        let body = try options.call("GET", "/api/resources/\(AdminOptions.segment(url))")
        if json { return print(String(decoding: body, as: UTF8.self), terminator: "") }
        let j = DownloadText.object(body)
        let ranges = (j["ranges"] as? [[Int]] ?? []).map { $0[0]..<$0[1] }
        let holes = (j["holes"] as? [[Int]] ?? []).map { $0[0]..<$0[1] }
        let length = j["length"] as? Int
        print(j["key"] as? String ?? url)
        print("  status \(j["status"] as? Int ?? 0), version \(j["version"] as? Int ?? 0), "
              + "\(DownloadText.size(j["cached_bytes"] as? Int ?? 0)) of \(length.map(DownloadText.size) ?? "unknown length")"
              + ((j["pinned"] as? Bool ?? false) ? ", pinned" : ""))
        print("  " + CacheShow.bar(ranges, length: length ?? ranges.last?.upperBound ?? 0))
        for r in ranges { print("  cached \(r.lowerBound)-\(r.upperBound - 1)") }
        for h in holes { print("  hole   \(h.lowerBound)-\(h.upperBound - 1)") }
    }

    /// `[####..++##]`: one column per 1/width of the length; `#` all cached, `.` none, `+` part.
    static func bar(_ ranges: [Range<Int>], length: Int, width: Int = 60) -> String {
        guard length > 0 else { return "[]" }
        var out = "["
        for c in 0..<width {
            let lo = length * c / width, hi = max(lo + 1, length * (c + 1) / width)
            let have = ranges.reduce(0) { $0 + max(0, min(hi, $1.upperBound) - max(lo, $1.lowerBound)) }
            out += have >= hi - lo ? "#" : have == 0 ? "." : "+"
        }
        return out + "]"
    }
}
