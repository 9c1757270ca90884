import CLibevent
import Glibc

/// One libevent `event_base` and the thread that runs it.
///
/// Everything created from a loop (server, timers, curl driver, cache store) is confined to the
/// thread that calls `run()`; nothing here is thread-safe, by design, so the hot path takes no locks.
/// Other threads reach a loop only through its `LoopMailbox`.
public final class EventLoop {
    /// libevent's locking and cross-thread wake-ups (`event_active` from another thread) work only
    /// for bases created after `evthread_use_pthreads`, so every base is created after this ran.
    private static let threading: Void = { _ = evthread_use_pthreads() }()

    /// The underlying `struct event_base *`.
    public let base: OpaquePointer

    /// The loop's mailbox, the one way in from other threads. Made on first use, which must be
    /// on the loop's thread or before it runs (`LoopMailbox.init`).
    public var mailbox: LoopMailbox {
        if let ownMailbox { return ownMailbox }
        let m = LoopMailbox(loop: self)
        ownMailbox = m
        return m
    }
    private var ownMailbox: LoopMailbox?

    /// Creates a base. Ignores SIGPIPE process-wide (evbuffer writes with writev without MSG_NOSIGNAL)
    /// and SIGXFSZ.
    public init() {
        _ = EventLoop.threading
        signal(SIGPIPE, SIG_IGN)
        // A file size limit (RLIMIT_FSIZE) must fail the write with EFBIG, not kill the process.
        signal(SIGXFSZ, SIG_IGN)
        EventLoop.raiseFileLimit()
        // The epoll changelist merges the enable/disable calls made on a socket within one loop
        // iteration (a tunnel's bufferevents, the curl driver) into a single epoll_ctl; with
        // evhttp, a small hit cost four without it (seen with strace).
        let cfg = event_config_new()
        event_config_set_flag(cfg, Int32(EVENT_BASE_FLAG_EPOLL_USE_CHANGELIST.rawValue))
        guard let b = event_base_new_with_config(cfg) else { fatalError("event_base_new failed") }
        event_config_free(cfg)
        base = b
    }

    deinit {
        ownMailbox = nil // its event goes before the base it is on
        event_base_free(base)
    }

    /// Raises the soft open-file limit to the hard one: every client connection, upstream connection
    /// and open cache file is a descriptor, and the usual soft default (1024) is far too low.
    static func raiseFileLimit() {
        var lim = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &lim) == 0, lim.rlim_cur < lim.rlim_max else { return }
        lim.rlim_cur = lim.rlim_max
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &lim)
    }

    /// Runs until `stop()` or until no events remain.
    public func run() { event_base_dispatch(base) }

    /// Runs until `stop()`, also while nothing is pending: a worker loop waits for its mailbox.
    public func runUntilStopped() { event_base_loop(base, EVLOOP_NO_EXIT_ON_EMPTY) }

    /// Makes `run()` return after the current callbacks.
    public func stop() { event_base_loopbreak(base) }

    /// Seconds since the epoch, from the loop's cached time (cheap; updated once per loop iteration).
    public func wallClock() -> Int {
        var tv = timeval()
        event_base_gettimeofday_cached(base, &tv)
        return tv.tv_sec
    }

    /// A monotonic clock in seconds, for durations.
    public static func monotonic() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
