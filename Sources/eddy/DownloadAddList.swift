import ArgumentParser
import EddyDownloads
import Foundation

/// `eddy download add --from FILE`: every line of a list (`DownloadListFile`) parsed with
/// `download add`'s own options and posted as one JSON list. Each line prints its id, or its
/// error on stderr with its line number; a bad line creates nothing for itself and does not stop
/// the rest. Exits 1 when any line failed.
struct DownloadAddList {
    let path: String
    let options: AdminOptions

    func run() throws {
        let text: String
        do {
            let data = path == "-" ? FileHandle.standardInput.readDataToEndOfFile() : try Data(contentsOf: URL(fileURLWithPath: path))
            text = String(decoding: data, as: UTF8.self)
        } catch {
            throw ValidationError("--from \(path): \(error.localizedDescription)")
        }
        let list = DownloadListFile(text)
        var failed = list.bad.map { ($0.number, $0.reason) }
        var posted: [(line: Int, spec: DownloadSpec)] = []
        for line in list.lines {
            do {
                let command = try DownloadAdd.parse(line.words)
                guard command.from == nil, !command.wait else { throw ValidationError("--from and --wait are not for a list's lines") }
                posted.append((line.number, try command.spec()))
            } catch {
                failed.append((line.number, DownloadAdd.message(for: error)))
            }
        }
        // The API takes at most 1,000 items a request.
        for start in stride(from: 0, to: posted.count, by: 1000) {
            let batch = Array(posted[start..<min(start + 1000, posted.count)])
            let body = try options.call("POST", "/api/downloads", json: JSONEncoder().encode(batch.map(\.spec)))
            let results = (try? JSONSerialization.jsonObject(with: body)) as? [[String: Any]] ?? []
            for (i, p) in batch.enumerated() {
                let r = i < results.count ? results[i] : [:]
                if let id = r["id"] as? String { print("\(id) \(p.spec.url)") } else {
                    failed.append((p.line, "\(r["status"] as? Int ?? 0): \(r["error"] as? String ?? "no answer")"))
                }
            }
        }
        for (line, reason) in failed.sorted(by: { $0.0 < $1.0 }) {
            FileHandle.standardError.write(Data("eddy: \(path == "-" ? "stdin" : path):\(line): \(reason)\n".utf8))
        }
        if !failed.isEmpty { throw ExitCode(1) }
    }
}
