import EddyCore
import EddyLoop

/// Bandwidth caps (yt-dlp's `--limit-rate`, aria2's `--max-overall-download-limit`):
/// `download_rate_limit` for all downloads together and `--rate` per download, in bytes a
/// second, as token buckets the fills consult on their loops (a paused transfer and a timer,
/// never a sleep). A fill a player reads is never capped (see `FillSession.rateWait`).
extension DownloadEngine {
    /// The limiters the job's fetches keep to: its own (no limit without `--rate`) and the engine's.
    func limiters(of job: DownloadJob) -> [RateLimiter] { [job.rateLimiter, rateLimiter] }

    /// Changes `download_rate_limit` live (SIGHUP); 0 lifts it.
    package func setRateLimit(_ rate: Int) {
        rateLimiter.setRate(rate, now: EventLoop.monotonic())
    }

    /// Changes a job's own rate live (`PATCH`); nil or 0 lifts it. The running fetches keep to
    /// the new rate at their next chunk: they hold the same limiter.
    package func setRate(_ job: DownloadJob, _ text: String?) throws(DownloadInputError) {
        let (spec, rate) = try checkedRate(job, text)
        job.spec = spec
        job.rateLimiter.setRate(rate, now: EventLoop.monotonic())
        save(job)
        changed(job)
    }

    /// The job's spec with its own rate set to `text` (nil, empty or 0: none), and that rate in
    /// bytes a second; a 400 when it does not parse. Nothing changes.
    package func checkedRate(_ job: DownloadJob, _ text: String?) throws(DownloadInputError) -> (DownloadSpec, Int) {
        var spec = job.spec
        spec.rate = text.map { String($0.trimmingOWS()) }.flatMap { $0.isEmpty || ByteSize.parse($0) == 0 ? nil : $0 }
        return (spec, try spec.rateLimit() ?? 0)
    }
}
