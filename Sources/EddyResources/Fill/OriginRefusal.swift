import EddyCore
import EddyLoop

/// An origin's error answer, as a download job needs it: the status (a 429 or 503 shrinks the
/// job's window) and how long the origin asked to be left alone (Retry-After, RFC 9110 section
/// 10.2.3), which the job waits instead of its own backoff.
package struct OriginRefusal: Equatable {
    package var status: Int
    package var retryAfter: Double?

    init(status: Int, retryAfter: Double?) {
        self.status = status
        self.retryAfter = retryAfter
    }

    /// From an error head, nil for any other.
    package init?(_ head: UpstreamHead?, now: Int) {
        guard let head, head.status >= 400 else { return nil }
        self.init(status: head.status, retryAfter: RetryAfter.seconds(head.headers["Retry-After"], now: now))
    }
}
