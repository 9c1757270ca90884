import EddyCore
import EddyLoop
import Foundation

/// `GET /api/events`: the dashboard's live feed, a `DashboardSnapshot` as a server-sent event
/// (`event: snapshot`) at once and then every second while it changes (the chart moves each
/// minute, a download's rate each second), with a comment line every 15 s otherwise so that
/// proxies keep the stream open. It ends when the client goes.
package final class DashboardEvents {
    private let request: ServerRequest
    /// Gathers a snapshot from the loops and hands it over, on the main loop.
    private let snapshot: (@escaping (DashboardSnapshot) -> Void) -> Void
    private var timer: LoopTimer?
    private var lastSent: Data?
    private var quietTicks = 0
    /// Held while streaming.
    private var keepAlive: DashboardEvents?

    package init(loop: EventLoop, request: ServerRequest, snapshot: @escaping (@escaping (DashboardSnapshot) -> Void) -> Void) {
        self.request = request
        self.snapshot = snapshot
        timer = LoopTimer(loop: loop, repeating: true) { [weak self] in self?.tick() }
    }

    package func start() {
        request.startEventStream()
        keepAlive = self
        request.onClose = { [weak self] in self?.stop() }
        tick()
        timer?.schedule(after: 1)
    }

    private func tick() {
        guard !request.isGone, !request.isFinished else { return stop() }
        snapshot { [weak self] in self?.send($0) }
    }

    private func send(_ snapshot: DashboardSnapshot) {
        guard keepAlive != nil, !request.isGone, !request.isFinished else { return }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(snapshot) else { return }
        if data != lastSent {
            lastSent = data
            quietTicks = 0
            write("event: snapshot\ndata: " + String(decoding: data, as: UTF8.self) + "\n\n")
        } else {
            quietTicks += 1
            if quietTicks % 15 == 0 { write(": keep-alive\n\n") }
        }
    }

    private func write(_ text: String) { request.writeEvent(text) }

    private func stop() {
        timer?.cancel()
        timer = nil
        if !request.isFinished { request.end() }
        keepAlive = nil
    }
}
