import EddyCache
import EddyLoop

/// The last line of defence against a job that waits for nothing: every fetch a job starts is
/// meant to end back at the job (stored or failed), but a job whose fetches are in flight and
/// which has neither ended a fetch nor confirmed a byte for `stall_timeout` is stuck somewhere
/// below it. The watchdog logs it, counts it (`eddy_download_stalls_total`) and starts those
/// fetches again: what they confirmed is kept, so a restart costs at most a block each.
extension DownloadEngine {
    /// Looks at each running job once (from the save timer, every 2 s).
    func watchForStalls() {
        let now = EventLoop.monotonic()
        // Downloads giving way to a player (`PlayerActivity`) wait on purpose: not a stall.
        let yielding = homes.all[0].coordinators.players.holdBack(now: now) > 0
        for job in jobs where job.state == .running {
            guard !job.fetches.isEmpty, !yielding else {
                job.lastMove = (now, -1, -1) // nothing in flight: waiting for a backoff, or planning
                continue
            }
            let bytes = job.fetches.values.reduce(0) { $0 + $1.confirmedBytes }
            guard bytes == job.lastMove.bytes && job.fetchesEnded == job.lastMove.units else {
                job.lastMove = (now, bytes, job.fetchesEnded)
                continue
            }
            guard now - job.lastMove.at >= stallLimit(job) else { continue }
            restartStalled(job, idle: now - job.lastMove.at)
            job.lastMove = (now, -1, -1)
        }
    }

    /// Seconds without a move that make a stall: `stall_timeout`, or longer under a cap slow
    /// enough that a block of each fetch takes longer to confirm (bytes count by the block).
    private func stallLimit(_ job: DownloadJob) -> Double {
        let caps = [job.rateLimiter.rate, rateLimiter.rate].filter { $0 > 0 }
        guard let cap = caps.min() else { return settings.stallTimeout }
        return max(settings.stallTimeout, 2 * Double(job.fetches.count * CacheStore.blockSize) / Double(cap))
    }

    private func restartStalled(_ job: DownloadJob, idle: Double) {
        let names = job.fetches.keys.sorted().compactMap { job.plan?.units[$0].name }
        logger.warning("download stalled: restarting its fetches",
                       metadata: ["id": "\(job.id)", "seconds": "\(Int(idle))", "units": "\(names.joined(separator: " "))"])
        homes.all[0].metrics.downloadStalls += 1
        job.record(["event": "stall", "seconds": "\(Int(idle))", "units": names.joined(separator: " ")])
        for i in job.units.stopFetches() { job.fetches.removeValue(forKey: i)?.cancel() }
        pump(job)
        changed(job)
    }
}
