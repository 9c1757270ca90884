import EddyLoop

/// What a response waiting on a discovery or revalidation learns when the fill's head is in.
package enum HeadOutcome {
    /// The resource is stored and current: respond from it.
    case ready
    /// The origin's response is not for storing: pass it through. The fill's owner gets the fill's
    /// transfer with its head; other waiters fetch on their own.
    case notStorable(transfer: UpstreamTransfer?, head: UpstreamHead?, refusal: String?)
    /// No usable head came, with the reason; `timeout` when the origin was too slow.
    case failed(String, timeout: Bool)
}

/// A response that waits on a fill's head.
package protocol HeadWaiter: AnyObject {
    /// False once the response is complete or abandoned.
    var isWaiting: Bool { get }
    func headArrived(_ outcome: HeadOutcome)
    /// An interim (1xx) head came before the final one: a response forwards it if its own head
    /// has not gone out (RFC 9110 section 15.2).
    func interimArrived(_ head: UpstreamHead)
    /// How urgently it wants the fill: a client's response `.playback`, a download `.download`.
    var waiterPriority: FetchPriority { get }
}

extension HeadWaiter {
    package func interimArrived(_ head: UpstreamHead) {}
    package var waiterPriority: FetchPriority { .playback }
}
