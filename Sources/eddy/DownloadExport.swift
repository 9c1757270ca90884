import ArgumentParser
import Foundation
import Glibc

/// `eddy download export ID DIR [--mp4 FILE]`: writes a downloaded asset as a self-contained HLS
/// folder (relative URIs, only the renditions held whole, the keys with mode 0600) that ffmpeg,
/// mpv and VLC play from disk; `--mp4` then remuxes it into one file with ffmpeg (`MP4Remux`).
struct DownloadExport: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Write a download as an HLS folder (and optionally one MP4 file).",
        discussion: "Exit codes: 0 done, 1 the API refused (nothing held whole yet, unknown id) or ffmpeg failed or is missing.")
    @OptionGroup var options: AdminOptions
    @Argument var id: String
    @Argument(help: "The folder to write (created if missing). Without it, --mp4 uses a temporary one.")
    var dir: String?
    @Option(help: "Also remux the chosen video, audio and subtitles (as MP4 text tracks) into this MP4 file (needs ffmpeg).")
    var mp4: String?

    func validate() throws {
        guard dir != nil || mp4 != nil else { throw ValidationError("give a folder, --mp4 FILE, or both") }
    }

    func run() throws {
        let ffmpeg = mp4 == nil ? nil : DownloadExport.which("ffmpeg")
        if mp4 != nil && ffmpeg == nil {
            FileHandle.standardError.write(Data("eddy: --mp4 needs ffmpeg, which is not installed (Debian: apt-get install ffmpeg)\n".utf8))
            throw ExitCode(1)
        }
        let listing = DownloadText.object(try options.call("GET", "/api/downloads/\(id)/export"))
        let files = listing["files"] as? [[String: Any]] ?? []
        let folder = dir ?? NSTemporaryDirectory() + "eddy-export-\(getpid())"
        defer { if dir == nil { try? FileManager.default.removeItem(atPath: folder) } }
        var bytes = 0
        for f in files {
            guard let path = f["path"] as? String, DownloadExport.isSafe(path) else { throw ValidationError("the API named an unsafe path") }
            let full = folder + "/" + path
            try FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            if let text = f["text"] as? String {
                try Data(text.utf8).write(to: URL(fileURLWithPath: full))
                bytes += text.utf8.count
                continue
            }
            guard let url = f["url"] as? String, let length = f["length"] as? Int else { continue }
            let fd = open(full, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, (f["key"] as? Bool) == true ? 0o600 : 0o644)
            guard fd >= 0 else { throw ValidationError("cannot write \(full): \(String(cString: strerror(errno)))") }
            defer { close(fd) }
            ftruncate(fd, off_t(length))
            let q = url.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? url
            let ranges = (f["ranges"] as? [[Int]])?.compactMap { $0.count == 2 ? $0[0]..<$0[1] : nil }
            for r in ranges ?? [nil] as [Range<Int>?] {
                try options.client.save("/api/downloads/\(id)/file?url=\(q)", range: r, length: length, to: fd)
                bytes += r?.count ?? length
            }
        }
        if dir != nil { print("exported \(files.count) files, \(DownloadText.size(bytes)), to \(folder)") }
        guard let mp4, let ffmpeg, let root = files.first?["path"] as? String else { return }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: ffmpeg)
        p.arguments = MP4Remux(master: files.first?["text"] as? String ?? "", masterPath: root, folder: folder, output: mp4).arguments
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            FileHandle.standardError.write(Data("eddy: ffmpeg failed (exit \(p.terminationStatus)) writing \(mp4)\n".utf8))
            throw ExitCode(1)
        }
        print("wrote \(mp4)")
    }

    /// A relative path with no `..` or empty component (the API's paths are made so; checked again).
    static func isSafe(_ path: String) -> Bool {
        !path.hasPrefix("/") && !path.split(separator: "/", omittingEmptySubsequences: false).contains { $0.isEmpty || $0 == ".." || $0 == "." }
    }

    /// The executable `name` on PATH.
    static func which(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { access($0, X_OK) == 0 }
    }
}
