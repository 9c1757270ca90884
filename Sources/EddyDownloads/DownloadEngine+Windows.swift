import Foundation
import Glibc

/// Download windows (`--window`, `download_window`): a job runs only inside its window, in local
/// time; outside it waits in `scheduled`, and a window that closes stops its requests cleanly
/// (every confirmed block is kept) until the next one opens. Players are never held back: a
/// window stops a job's own fetches, and a fill a player also reads goes on for the player.
extension DownloadEngine {
    /// The job's window: its own, else the config's `download_window`; nil: any time.
    package func window(of job: DownloadJob) -> DownloadWindow? {
        job.spec.window.flatMap(DownloadWindow.parse) ?? defaultWindow
    }

    /// Seconds since local midnight at epoch second `t` (the TZ of the process).
    static func secondOfDay(_ t: Int) -> Int {
        var time = time_t(t), parts = tm()
        localtime_r(&time, &parts)
        return Int(parts.tm_hour) * 3600 + Int(parts.tm_min) * 60 + Int(parts.tm_sec)
    }

    /// When a scheduled job's window next opens (epoch seconds); nil when it is not scheduled.
    package func nextStart(_ job: DownloadJob) -> Int? {
        guard job.state == .scheduled, let w = window(of: job) else { return nil }
        let now = loop.wallClock()
        return now + w.untilStart(from: DownloadEngine.secondOfDay(now))
    }

    /// Moves jobs in and out of `scheduled` as their windows say now (run before slots are
    /// granted, and every two seconds).
    func applyWindows() {
        let now = loop.wallClock(), second = DownloadEngine.secondOfDay(now)
        for j in jobs {
            let open = window(of: j).map { $0.contains(secondOfDay: second) } ?? true
            let before = j.state
            let action = open ? j.machine.windowOpened() : j.machine.windowClosed()
            guard j.state != before else { continue }
            let event = open ? "window opened" : "window closed"
            j.record(["event": open ? "window-open" : "window-closed", "window": window(of: j)?.description ?? "-"])
            logger.info("download \(event)", metadata: ["id": "\(j.id)", "window": "\(window(of: j)?.description ?? "-")"])
            perform(action, j)
            changed(j)
        }
    }
}
