import EddyCore
import Foundation
import Glibc
import Logging

/// `--log-format json`: each diagnostic as one JSON object on stderr, for log collectors:
/// `{"time":..., "level":"info", "label":"eddy", "message":..., <metadata>...}`.
struct JSONLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    init(label: String, level: Logger.Level) {
        self.label = label
        logLevel = level
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var all = metadata
        if let p = metadataProvider { all.merge(p.get()) { $1 } }
        if let m = event.metadata { all.merge(m) { $1 } }
        var fields: [(String, String)] = [
            ("time", JSONText.quote(ISO8601DateFormatter.string(from: Date(), timeZone: TimeZone(identifier: "UTC")!,
                                                                formatOptions: [.withInternetDateTime, .withFractionalSeconds]))),
            ("level", JSONText.quote(event.level.rawValue)), ("label", JSONText.quote(label)),
            ("message", JSONText.quote(event.message.description)),
        ]
        for (k, v) in all.sorted(by: { $0.key < $1.key }) where !["time", "level", "label", "message"].contains(k) {
            fields.append((k, JSONText.quote("\(v)")))
        }
        let line = JSONText.object(fields) + "\n"
        // One write(2) per line: lines from the loop and from the index queue never interleave.
        line.utf8CString.withUnsafeBufferPointer { p in _ = Glibc.write(2, p.baseAddress, p.count - 1) }
    }
}
