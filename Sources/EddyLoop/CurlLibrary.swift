import CCurl
import Dispatch
import EddyCore
import Glibc

/// libcurl, opened at run time rather than linked (see CCurl.h: linked, it and the forty
/// libraries it needs cost every start of every command 4 ms before `main`).
///
/// `eddy serve` calls `preload` once it listens, so libcurl opens on a thread of its own while
/// the first requests are served; the first transfer (`require`) waits for it only if it comes
/// sooner. Anything else that makes a transfer (tests, tools) opens it on first use.
public enum CurlLibrary {
    /// nil once libcurl is open and `curl_global_init` succeeded; otherwise why not. Evaluated once,
    /// on first use, by whichever thread comes first (a Swift global's initialiser runs once, and
    /// a second thread waits for it): curl_global_init is not safe to run twice at once.
    public static let failure: String? = {
        if let why = eddy_curl_open() { return String(cString: why) }
        let rc = eddy_curl_global_init(Int(CURL_GLOBAL_DEFAULT))
        return rc == CURLE_OK ? nil : "curl_global_init failed: \(String(cString: eddy_curl_easy_strerror(rc)))"
    }()

    /// Where the background opening (`preload`) is: `settle` stops one that has not started.
    enum Preload { case idle, scheduled, running, finished, cancelled }
    private static let preloading = Locked(Preload.idle)
    /// Signalled when a running preload (its `done` included) has finished.
    private static let preloaded = DispatchSemaphore(value: 0)

    /// Opens libcurl in the background, `delay` seconds from now; `done` runs there, with
    /// `failure`. Once per process: a second call, or one after `settle`, does nothing, and
    /// `settle` before the delay is up cancels it (`done` then never runs).
    public static func preload(after delay: Double = 0, _ done: @escaping @Sendable (String?) -> Void = { _ in }) {
        let scheduled = preloading.withLock { state -> Bool in
            guard state == .idle else { return false }
            state = .scheduled
            return true
        }
        guard scheduled else { return }
        DispatchQueue.global(qos: .userInitiated).asyncAfter(deadline: .now() + delay) {
            let go = preloading.withLock { state -> Bool in
                guard state == .scheduled else { return false }
                state = .running
                return true
            }
            guard go else { return }
            done(failure)
            preloading.withLock { $0 = .finished }
            preloaded.signal()
        }
    }

    /// Call before the process exits: a preload that has not started never will, and one under
    /// way is waited for. `exit` runs the libraries' destructors, and while libcurl's
    /// initialisation (OpenSSL's) ran on another thread, a stop within ~80 ms of the start
    /// crashed eddy (SIGSEGV in libidn2's destructor, 1 stop in 20 to 40).
    /// `done` is waited for too: on a failure it ends the process itself, and two `exit`s at
    /// once would race as well.
    public static func settle() {
        let running = preloading.withLock { state -> Bool in
            if state == .scheduled || state == .idle { state = .cancelled }
            return state == .running
        }
        if running { preloaded.wait() }
    }

    /// Waits until libcurl is open. Without it no transfer can be made at all, and there is
    /// nothing to answer with, so this ends the process with the reason (as the dynamic loader
    /// did when libcurl was linked); `preload`'s caller reports it sooner, at start-up.
    public static func require() {
        guard let why = failure else { return }
        fputs("eddy: cannot open libcurl: \(why)\n", stderr)
        exit(69) // EX_UNAVAILABLE
    }
}
