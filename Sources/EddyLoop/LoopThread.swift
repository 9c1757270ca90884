import CLibevent
import EddyCore
import Glibc

/// An `EventLoop` on a thread of its own (a worker loop), with the mailbox that reaches it.
///
/// `setUp` runs on the new thread before the loop turns (servers, timers and curl handles made
/// there belong to it), then the loop runs there until `stop()`.
public final class LoopThread: @unchecked Sendable {
    /// The worker's loop; touch it only from jobs posted to `mailbox`, or from its callbacks.
    public let loop: EventLoop
    /// Posts jobs to the worker's thread.
    public let mailbox: LoopMailbox
    private var thread = pthread_t()
    private let body: () -> Void
    private let stopped = Locked(false)

    /// Starts the thread and returns once `setUp` has run on it, rethrowing what it threw.
    public init(name: String, setUp: @escaping (EventLoop, LoopMailbox) throws -> Void) throws {
        loop = EventLoop()
        mailbox = loop.mailbox
        let (loop, mailbox) = (self.loop, self.mailbox)
        let ready = Locked<Result<Void, Error>?>(nil)
        let name15 = String(name.utf8.prefix(15))! // the kernel keeps 15 bytes
        body = {
            eddy_name_thread(name15)
            ready.withLock { $0 = Result { try setUp(loop, mailbox) } }
            if case .success? = ready.withLock({ $0 }) { loop.runUntilStopped() }
        }
        let box = Unmanaged.passRetained(self).toOpaque()
        let rc = pthread_create(&thread, nil, { arg in
            let me = Unmanaged<LoopThread>.fromOpaque(arg!).takeRetainedValue()
            me.body()
            return nil
        }, box)
        guard rc == 0 else {
            Unmanaged<LoopThread>.fromOpaque(box).release()
            throw HTTPServerError(description: "cannot start the \(name) thread: \(String(cString: strerror(rc)))")
        }
        // The set-up is short (a listener, a curl handle): wait for it without a condition variable.
        while true {
            if let result = ready.withLock({ $0 }) {
                if case let .failure(error) = result {
                    pthread_join(thread, nil)
                    throw error
                }
                return
            }
            usleep(200)
        }
    }

    /// Runs `setUp` on the loop's thread (after the jobs already posted there) and returns once
    /// it has, rethrowing what it threw: a second start-up step (a listener opened once every
    /// home exists). Start-up only: never call it from a loop, which would wait on another.
    public func startUp(_ setUp: @escaping () throws -> Void) throws {
        let result = Locked<Result<Void, Error>?>(nil)
        mailbox.post { result.withLock { $0 = Result { try setUp() } } }
        // Short (a listener): waited for as `init` waits for its own set-up.
        while true {
            if let r = result.withLock({ $0 }) { return try r.get() }
            usleep(200)
        }
    }

    /// Makes the loop return after the jobs already posted, and waits for the thread to end.
    /// Idempotent; call from another thread, never from the worker's own.
    public func stop() {
        mailbox.post { [loop] in loop.stop() }
        join()
    }

    /// Waits for the thread to end (a job posted earlier stops its loop). Idempotent.
    public func join() {
        guard stopped.withLock({ s in defer { s = true }; return !s }) else { return }
        pthread_join(thread, nil)
    }
}
