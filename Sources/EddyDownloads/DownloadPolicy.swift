import Foundation

/// A download's keeping policy, as AVAssetDownloadStorageManager's
/// `AVAssetDownloadStorageManagementPolicy` has it: a priority and an expiry date.
///
/// eddy never evicts one download for another (issue 13): a download that does not fit waits in
/// `waiting-for-space`. The policy orders what happens when space is needed: expired downloads
/// are released first (they are unpinned at their expiry and left to ordinary eviction), then
/// priority decides which waiting download gets space and a slot first (important before normal).
public struct DownloadPolicy: Equatable, Sendable {
    public enum Priority: String, Codable, Sendable { case normal, important }

    public var priority: Priority = .normal
    /// Wall-clock seconds (Unix time) after which the download is released; nil: never.
    public var expiresAt: Int?

    public init(priority: Priority = .normal, expiresAt: Int? = nil) {
        self.priority = priority
        self.expiresAt = expiresAt
    }

    /// Reads the API's `priority` and `expires` for a job created at `createdAt`. `expires` is a
    /// duration from creation (`90s`, `30m`, `12h`, `7d`, `2w`, or bare seconds) or an RFC 3339
    /// date (`2026-12-24` or `2026-12-24T18:00:00Z`).
    public static func parse(priority: String?, expires: String?, createdAt: Int) throws(DownloadInputError) -> DownloadPolicy {
        var p = DownloadPolicy()
        if let priority {
            guard let v = Priority(rawValue: priority.lowercased()) else {
                throw DownloadInputError("priority: '\(priority)' is not normal or important")
            }
            p.priority = v
        }
        if let expires {
            if let s = duration(expires) {
                p.expiresAt = createdAt + s
            } else if let d = date(expires) {
                p.expiresAt = d
            } else {
                throw DownloadInputError("expires: '\(expires)' is not a duration (like 7d, 12h, 30m) or a date (like 2026-12-24)")
            }
        }
        return p
    }

    /// Seconds in `90s`, `30m`, `12h`, `7d`, `2w` or `3600`; nil for anything else.
    static func duration(_ text: String) -> Int? {
        let t = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard let last = t.last else { return nil }
        let units: [Character: Int] = ["s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604_800]
        let (digits, unit) = units[last].map { (t.dropLast(), $0) } ?? (Substring(t), 1)
        // Digits only (no sign), and short enough not to overflow when multiplied.
        guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy(\.isASCII), let n = Int(digits), n >= 0,
              digits.allSatisfy(\.isNumber) else { return nil }
        return n * unit
    }

    /// Unix time of an RFC 3339 date (`YYYY-MM-DD`, midnight UTC) or date-time; nil when it is
    /// not one. Checked field by field first: Foundation's parser takes a date prefix and ignores
    /// the rest, and rolls 2026-02-31 over to March (found by schemathesis).
    static func date(_ text: String) -> Int? {
        let t = Array(text.trimmingCharacters(in: .whitespaces).utf8)
        func num(_ r: Range<Int>, _ range: ClosedRange<Int>) -> Int? {
            guard r.upperBound <= t.count, t[r].allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
            let n = t[r].reduce(0) { $0 * 10 + Int($1 - 48) }
            return range.contains(n) ? n : nil
        }
        guard t.count >= 10, t[4] == 45, t[7] == 45, let y = num(0..<4, 1970...9999), let m = num(5..<7, 1...12),
              let d = num(8..<10, 1...31) else { return nil }
        let days = [31, y % 4 == 0 && (y % 100 != 0 || y % 400 == 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard d <= days[m - 1] else { return nil }
        // Days since the epoch (civil-from-days, inverted), then the time of day.
        let yy = m <= 2 ? y - 1 : y, era = yy / 400, yoe = yy - era * 400
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
        let epochDay = era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468
        if t.count == 10 { return epochDay * 86400 }
        guard t[10] == 84 || t[10] == 116, t.count >= 20, t[13] == 58, t[16] == 58, let hh = num(11..<13, 0...23),
              let mm = num(14..<16, 0...59), let ss = num(17..<19, 0...60) else { return nil }
        var i = 19
        if i < t.count && t[i] == 46 {
            i += 1
            let start = i
            while i < t.count && t[i] >= 48 && t[i] <= 57 { i += 1 }
            guard i > start else { return nil }
        }
        var offset = 0
        if i == t.count - 1 && (t[i] == 90 || t[i] == 122) {
            offset = 0
        } else if i == t.count - 6 && (t[i] == 43 || t[i] == 45) && t[i + 3] == 58,
                  let oh = num((i + 1)..<(i + 3), 0...23), let om = num((i + 4)..<(i + 6), 0...59) {
            offset = (oh * 3600 + om * 60) * (t[i] == 43 ? 1 : -1)
        } else {
            return nil
        }
        return epochDay * 86400 + hh * 3600 + mm * 60 + Swift.min(ss, 59) - offset
    }
}
