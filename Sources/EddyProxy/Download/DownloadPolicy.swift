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

    /// Unix time of an RFC 3339 date or date-time; nil when it is not one.
    static func date(_ text: String) -> Int? {
        let t = text.trimmingCharacters(in: .whitespaces)
        let full = ISO8601DateFormatter()
        if let d = full.date(from: t) { return Int(d.timeIntervalSince1970) }
        let day = ISO8601DateFormatter()
        day.formatOptions = [.withFullDate]
        return day.date(from: t).map { Int($0.timeIntervalSince1970) }
    }
}
