/// When downloads may run, in local time of day (`--window 01:00-06:00`, `download_window:`):
/// AVFoundation's discretionary background session, made explicit for a box that fills
/// overnight while the line is free. A window may cross midnight (`22:00-06:00`); seconds may be
/// given (`01:00:30-01:05`). Pure: the engine passes the second of the local day.
public struct DownloadWindow: Equatable, Sendable, CustomStringConvertible {
    /// Seconds after local midnight: the first second inside, and the first second after.
    public let start: Int
    public let end: Int

    static let day = 86_400

    public init?(start: Int, end: Int) {
        guard (0..<DownloadWindow.day).contains(start), (0..<DownloadWindow.day).contains(end), start != end else { return nil }
        (self.start, self.end) = (start, end)
    }

    /// `HH:MM-HH:MM` (or with `:SS`); nil when it does not parse or is empty (start equal to end).
    public static func parse(_ text: String) -> DownloadWindow? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let a = clock(parts[0]), let b = clock(parts[1]) else { return nil }
        return DownloadWindow(start: a, end: b)
    }

    private static func clock(_ text: Substring) -> Int? {
        let f = text.trimmingOWS().split(separator: ":", omittingEmptySubsequences: false)
        guard f.count == 2 || f.count == 3, f.allSatisfy({ $0.count == 2 && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let h = Int(f[0]), let m = Int(f[1]), let s = f.count == 3 ? Int(f[2]) : 0,
              (0..<24).contains(h), (0..<60).contains(m), (0..<60).contains(s) else { return nil }
        return h * 3600 + m * 60 + s
    }

    /// Whether second `s` of the local day is inside.
    public func contains(secondOfDay s: Int) -> Bool {
        start < end ? (start..<end).contains(s) : s >= start || s < end
    }

    /// Seconds from second `s` of the day to the window's next start (0 when it starts now).
    public func untilStart(from s: Int) -> Int { (start - s + DownloadWindow.day) % DownloadWindow.day }

    public var description: String { "\(DownloadWindow.text(start))-\(DownloadWindow.text(end))" }

    private static func text(_ s: Int) -> String {
        let h = s / 3600, m = s / 60 % 60, sec = s % 60
        let hm = (h < 10 ? "0" : "") + "\(h):" + (m < 10 ? "0" : "") + "\(m)"
        return sec == 0 ? hm : hm + ":" + (sec < 10 ? "0" : "") + "\(sec)"
    }
}
