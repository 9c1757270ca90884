/// Where a download job is (issue 12's states; the raw values are the API's `state`).
public enum DownloadState: String, Codable, Sendable, CaseIterable {
    /// Waiting for one of `max_parallel_downloads` slots.
    case queued
    case running
    /// Stopped by the user; resumes only when asked.
    case paused
    /// The origin failed; the job retries by itself after a backoff.
    case waitingForOrigin = "waiting-for-origin"
    case completed
    /// A segment failed `download_retries` times in a row; the job says which and why.
    case failed
    case cancelled

    /// No event but `resume` (for failed) leaves these.
    public var isTerminal: Bool { self == .completed || self == .failed || self == .cancelled }
    /// The job holds one of the parallel-download slots.
    public var holdsSlot: Bool { self == .running || self == .waitingForOrigin }
}
