import CLibevent
import EddyCore

/// The one way into a loop from another thread: jobs posted here run on the loop's thread, in
/// the order they were posted, woken with `event_active` (libevent's threading support, see
/// `EventLoop.init`, makes that call safe from any thread and wakes a loop waiting in epoll).
///
/// Jobs posted in a burst are run in one wake-up, so a busy loop pays one wake per batch, not
/// per job. Everything else in EddyLoop stays confined to its loop's thread.
public final class LoopMailbox: @unchecked Sendable {
    private struct Queue {
        var jobs: [() -> Void] = []
        /// True while a wake-up is pending: further posts only append.
        var signalled = false
        var closed = false
    }

    private let queue = Locked(Queue())
    private var event: OpaquePointer!
    /// The loop this mailbox delivers to.
    public unowned let loop: EventLoop

    /// Creates a mailbox delivering to `loop`. Call on the loop's thread, or before it runs.
    public init(loop: EventLoop) {
        self.loop = loop
        // Freed in deinit, so the callback never outlives the mailbox it points at.
        event = event_new(loop.base, -1, 0, { _, _, arg in
            Unmanaged<LoopMailbox>.fromOpaque(arg!).takeUnretainedValue().deliver()
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit { event_free(event) }

    /// Queues `job` to run on the loop's thread. Safe from any thread, including the loop's own
    /// (the job then runs on a later iteration, never inside the caller). Returns false, and drops
    /// the job, once the mailbox is closed.
    @discardableResult
    public func post(_ job: @escaping () -> Void) -> Bool {
        let wake: Bool? = queue.withLock { q in
            if q.closed { return nil }
            q.jobs.append(job)
            defer { q.signalled = true }
            return !q.signalled
        }
        guard let wake else { return false }
        if wake { event_active(event, Int32(eddy_EV_READ), 0) }
        return true
    }

    /// Refuses further jobs (the loop is stopping); those already queued still run if it turns again.
    public func close() { queue.withLock { $0.closed = true } }

    /// Jobs queued and not yet run.
    public var pending: Int { queue.withLock { $0.jobs.count } }

    private func deliver() {
        // Taken as a batch, so jobs that post more (to this loop) run on the next wake-up.
        let jobs = queue.withLock { q -> [() -> Void] in
            q.signalled = false
            defer { q.jobs.removeAll(keepingCapacity: true) }
            return q.jobs
        }
        for job in jobs { job() }
    }
}
