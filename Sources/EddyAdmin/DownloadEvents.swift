import EddyCore
import EddyDownloads
import EddyLoop
import Foundation

/// `GET /api/downloads/{id}/events`: the job's JSON as server-sent events (`event: progress`),
/// at most every 100 ms while it changes (its end at once), and a comment line every 15 s to keep proxies from
/// closing an idle stream. The stream ends after the event that shows the job completed,
/// failed or cancelled.
final class DownloadEvents {
    private let api: DownloadAPI
    private let job: DownloadJob
    private let request: ServerRequest
    private var token: Int?
    private var timer: LoopTimer?
    private var heartbeat: LoopTimer?
    private var pending = false
    private var lastSent: Data?
    /// Held while streaming.
    private var keepAlive: DownloadEvents?

    init(api: DownloadAPI, job: DownloadJob, request: ServerRequest) {
        self.api = api
        self.job = job
        self.request = request
    }

    func start() {
        request.startEventStream()
        keepAlive = self
        request.onClose = { [weak self] in self?.stop() }
        let loop = api.engine.loop
        timer = LoopTimer(loop: loop) { [weak self] in self?.flush() }
        heartbeat = LoopTimer(loop: loop, repeating: true) { [weak self] in self?.write(": keep-alive\n\n") }
        heartbeat?.schedule(after: 15)
        token = api.engine.observe { [weak self] j in
            guard let self, j === self.job else { return }
            // The job's end is sent at once: a script waiting on the stream for `completed` learns
            // it when eddy does, not up to 100 ms later. Other changes are coalesced.
            if j.state.isTerminal { return self.flush() }
            guard !self.pending else { return }
            self.pending = true
            self.timer?.schedule(after: 0.1)
        }
        flush()
    }

    private func flush() {
        pending = false
        guard !request.isGone else { return stop() }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(api.engine.info(job)) else { return }
        if data != lastSent {
            lastSent = data
            write("event: progress\ndata: " + String(decoding: data, as: UTF8.self) + "\n\n")
        }
        if job.state.isTerminal || api.engine.job(job.id) == nil {
            request.end()
            stop()
        } else if job.state.holdsSlot {
            // Rate and bytes in flight change without a unit finishing: refresh once a second.
            pending = true
            timer?.schedule(after: 1)
        }
    }

    private func write(_ text: String) { request.writeEvent(text) }

    private func stop() {
        if let token { api.engine.unobserve(token) }
        token = nil
        timer?.cancel()
        heartbeat?.cancel()
        if !request.isFinished { request.end() }
        keepAlive = nil
    }
}
