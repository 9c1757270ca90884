/// Where a download job is (issue 12's states; the raw values are the API's `state`).
public enum DownloadState: String, Codable, Sendable, CaseIterable {
    /// Waiting for one of `max_parallel_downloads` slots.
    case queued
    /// Outside its download window (`--window`, `download_window`): it waits for the window's
    /// next start (`next_start`) without a slot.
    case scheduled
    case running
    /// Stopped by the user; resumes only when asked.
    case paused
    /// The origin failed; the job retries by itself after a backoff.
    case waitingForOrigin = "waiting-for-origin"
    /// It does not fit beside the downloads already pinned under `--max-size`; it waits (with a
    /// reason) until one is deleted or expires, and never evicts another download.
    case waitingForSpace = "waiting-for-space"
    case completed
    /// Past its `expires`: no longer pinned, its bytes left to ordinary eviction.
    case expired
    /// A segment failed `download_retries` times in a row; the job says which and why.
    case failed
    case cancelled

    /// No event but `resume` (for failed) leaves these.
    public var isTerminal: Bool { self == .completed || self == .failed || self == .cancelled || self == .expired }
    /// What the job stored is pinned (and served offline): every state but expired and cancelled.
    public var holdsPins: Bool { self != .expired && self != .cancelled }
    /// The job holds one of the parallel-download slots.
    public var holdsSlot: Bool { self == .running || self == .waitingForOrigin }
}
