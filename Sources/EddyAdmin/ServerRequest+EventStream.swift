import EddyCore
import EddyLoop

extension ServerRequest {
    /// Starts a server-sent events response (text/event-stream, never stored); events follow
    /// with `writeEvent`.
    func startEventStream() {
        var h = HTTPHeaders()
        h.set("Content-Type", "text/event-stream")
        h.set("Cache-Control", "no-store")
        start(status: 200, headers: h)
    }

    /// Writes `text` (one or more `field: value` lines and a blank line) unless the client is gone.
    func writeEvent(_ text: String) {
        guard !isGone, !isFinished else { return }
        Array(text.utf8).withUnsafeBytes { write($0) }
    }
}
