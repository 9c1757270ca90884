import EddyCore
import Glibc

/// One line per request. `combined`: the combined log format, then cache status, bytes from
/// cache, bytes from origin and duration in milliseconds, e.g.
/// `127.0.0.1 - - [21/Nov/2026:10:00:00 +0000] "GET /a.mp4 HTTP/1.1" 206 1024 "-" "mpv" HIT 1024 0 0.4`.
/// `json`: one object per line with the same fields, plus the cache key and the upstream time
/// (milliseconds from the request's arrival to the origin's head; null when the origin was not asked).
public final class AccessLog {
    /// The line formats (`access_log_format`).
    public enum Format: String, Sendable, CaseIterable { case combined, json }
    private let format: Format
    private var file: UnsafeMutablePointer<FILE>?
    /// The file's path; nil for stderr or off.
    private let path: String?

    /// Opens `path` for appending; "-" is stderr; nil disables logging.
    public init(path: String?, format: Format = .combined) throws {
        self.format = format
        switch path {
        case nil, "off": file = nil; self.path = nil
        case "-": file = stderr; self.path = nil
        case let p?:
            file = try AccessLog.open(p)
            self.path = p
        }
    }

    private static func open(_ p: String) throws -> UnsafeMutablePointer<FILE> {
        guard let f = fopen(p, "a") else { throw HTTPLogError(description: "cannot open access log \(p)") }
        // Fully buffered and flushed by the proxy's 0.5 s timer and at exit: line buffering
        // cost a write(2) per request, which showed up in the small-hit profile.
        setvbuf(f, nil, _IOFBF, 64 << 10)
        return f
    }

    /// Flushes and closes the file and opens its path again (after logrotate renamed it). When
    /// the path can not be opened, logging goes on to the old file, and the error is thrown.
    public func reopen() throws {
        guard let path, let old = file else { return }
        fflush(old)
        let new = try AccessLog.open(path)
        fclose(old)
        file = new
    }

    public struct HTTPLogError: Error, CustomStringConvertible { public let description: String }

    /// False when logging is off: callers skip gathering the fields.
    public var isEnabled: Bool { file != nil }

    /// Hands buffered lines to the kernel.
    public func flush() {
        if let file { fflush(file) }
    }

    /// The CLF date of the last second logged: formatted once per second, not per line.
    private var lastDate: (second: Int, text: String) = (-1, "")

    /// Writes one line.
    public func record(peer: String, method: String, uri: String, version: String, status: Int, bytes: Int,
                       referer: String?, userAgent: String?, cacheStatus: String, fromCache: Int, fromOrigin: Int,
                       durationMs: Double, now: Int, cacheKey: String? = nil, upstreamMs: Double? = nil) {
        guard let file else { return }
        if format == .json {
            if lastISO.second != now { lastISO = (now, AccessLog.isoDate(now)) }
            let s = { (v: String?) in v.map(JSONText.quote) ?? "null" }
            let line = JSONText.object([
                ("time", lastISO.text), ("peer", s(peer)), ("method", s(method)), ("uri", s(uri)), ("version", s(version)),
                ("status", "\(status)"), ("bytes", "\(bytes)"), ("referer", s(referer)), ("user_agent", s(userAgent)),
                ("cache", s(cacheStatus)), ("from_cache", "\(fromCache)"), ("from_origin", "\(fromOrigin)"),
                ("duration_ms", String(format1: durationMs)), ("cache_key", s(cacheKey)), ("upstream_ms", upstreamMs.map { String(format1: $0) } ?? "null"),
            ])
            fputs(line + "\n", file)
            return
        }
        func q(_ s: String?) -> String {
            guard let s, !s.isEmpty else { return "\"-\"" }
            return "\"" + s.replacingAll("\\", "\\\\").replacingAll("\"", "\\\"") + "\""
        }
        if lastDate.second != now { lastDate = (now, AccessLog.clfDate(now)) }
        let line = "\(peer) - - [\(lastDate.text)] \(q("\(method) \(uri) \(version)")) \(status) \(bytes) \(q(referer)) \(q(userAgent)) \(cacheStatus) \(fromCache) \(fromOrigin) \(String(format1: durationMs))\n"
        fputs(line, file)
    }

    /// The quoted RFC 3339 time of the last second logged (JSON lines).
    private var lastISO: (second: Int, text: String) = (-1, "")

    /// `"2026-11-21T10:00:00Z"`, quoted.
    static func isoDate(_ t: Int) -> String { "\"\(ISO8601Time.format(t))\"" }

    static func clfDate(_ t: Int) -> String {
        // HTTPDate gives "Sun, 06 Nov 1994 08:49:37 GMT"; CLF wants "06/Nov/1994:08:49:37 +0000".
        let p = HTTPDate.format(t).split(separator: " ")
        return "\(p[1])/\(p[2])/\(p[3]):\(p[4]) +0000"
    }
}

extension String {
    init(format1 v: Double) {
        let tenths = Int((v * 10).rounded())
        self = "\(tenths / 10).\(tenths % 10)"
    }
}
