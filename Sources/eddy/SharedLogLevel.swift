import EddyCore
import EddyLoop
import Logging

/// The diagnostics level every logger reads, so that a configuration reload (SIGHUP) changes it
/// for loggers already handed out. Read from the loops and from the index's queue: a lock
/// (`Locked`, which ThreadSanitizer understands).
final class SharedLogLevel: Sendable {
    private let value: Locked<Logger.Level>

    init(_ level: Logger.Level) { value = Locked(level) }

    var level: Logger.Level {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}

/// A handler whose level is the shared one; the wrapped handler formats and writes.
struct SharedLevelHandler: LogHandler {
    var inner: any LogHandler
    let shared: SharedLogLevel

    var logLevel: Logger.Level {
        get { shared.level }
        set { shared.level = newValue }
    }

    var metadata: Logger.Metadata {
        get { inner.metadata }
        set { inner.metadata = newValue }
    }

    var metadataProvider: Logger.MetadataProvider? {
        get { inner.metadataProvider }
        set { inner.metadataProvider = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { inner[metadataKey: key] }
        set { inner[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) { inner.log(event: event) }
}
