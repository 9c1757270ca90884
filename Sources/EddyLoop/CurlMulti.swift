import CCurl
import CLibevent
import EddyCore
import Glibc

/// Drives libcurl's multi_socket interface from an `EventLoop` (the pattern of curl's hiperfifo.c):
/// curl tells us which sockets to watch and when to time out; libevent tells curl when they fire.
///
/// One multi handle per loop, so connections (and HTTP/2 sessions) are reused across transfers.
public final class CurlMulti {
    /// The multi handle, made on first use: libcurl opens in the background at start-up
    /// (`CurlLibrary`), and a loop that never fetches never waits for it.
    var multi: UnsafeMutableRawPointer { handle ?? makeHandle() }
    private var handle: UnsafeMutableRawPointer?
    private let maxPerHost: Int
    let loop: EventLoop
    private var timer: LoopTimer!
    private var transfers: [UnsafeMutableRawPointer: UpstreamTransfer] = [:]
    private var pendingRemoval: [UpstreamTransfer] = []
    private var reaper: LoopTimer!
    private var watchdog: LoopTimer!

    /// Transfers in flight.
    public var activeCount: Int { transfers.count }
    /// The check every transfer's URL passes before anything is sent (see `UpstreamGate`).
    public var gate: UpstreamGate?
    /// Called for each transfer the gate refused (for a log line).
    public var onRefused: ((UpstreamURL, String) -> Void)?
    /// Called with the seconds a transfer took to connect, when it opened a new connection (for
    /// the connect-time histogram).
    public var onConnected: ((Double) -> Void)?

    /// Prepares the driver; the multi handle comes with the first transfer. `maxPerHost` caps
    /// connections per origin host (0 = unlimited).
    public init(loop: EventLoop, maxPerHost: Int = 0) {
        self.loop = loop
        self.maxPerHost = maxPerHost
        timer = LoopTimer(loop: loop) { [unowned self] in
            var running: Int32 = 0
            eddy_curl_multi_socket_action(multi, CURL_SOCKET_TIMEOUT, 0, &running)
            drainMessages()
        }
        reaper = LoopTimer(loop: loop) { [unowned self] in reap() }
        watchdog = LoopTimer(loop: loop, repeating: true) { [unowned self] in expireQueued() }
        watchdog.schedule(after: 0.5)
    }

    private func makeHandle() -> UnsafeMutableRawPointer {
        CurlLibrary.require()
        let multi = eddy_curl_multi_init()!
        handle = multi
        let me = Unmanaged.passUnretained(self).toOpaque()
        eddy_curl_multi_setopt_socketfn(multi) { easy, fd, what, userp, socketp in
            let me = Unmanaged<CurlMulti>.fromOpaque(userp!).takeUnretainedValue()
            me.socketChanged(fd: fd, what: what, watch: socketp)
            return 0
        }
        eddy_curl_multi_setopt_ptr(multi, CURLMOPT_SOCKETDATA, me)
        eddy_curl_multi_setopt_timerfn(multi) { _, timeoutMs, userp in
            let me = Unmanaged<CurlMulti>.fromOpaque(userp!).takeUnretainedValue()
            // -1 deletes the timer; any other value (0 included) re-arms it. Never call curl from here.
            if timeoutMs < 0 { me.timer.cancel() } else { me.timer.schedule(after: Double(timeoutMs) / 1000) }
            return 0
        }
        eddy_curl_multi_setopt_ptr(multi, CURLMOPT_TIMERDATA, me)
        if maxPerHost > 0 { eddy_curl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, maxPerHost) }
        return multi
    }

    deinit {
        guard let handle else { return }
        for (_, t) in transfers { eddy_curl_multi_remove_handle(handle, t.easy) }
        eddy_curl_multi_cleanup(handle)
    }

    /// Starts a transfer on the next loop iteration. Deferred because starts often happen inside a
    /// curl callback (a fill finishing wakes a response that needs the next fill), and libcurl
    /// refuses multi calls from its callbacks (CURLM_RECURSIVE_API_CALL).
    public func start(_ transfer: UpstreamTransfer) {
        transfers[transfer.easy] = transfer
        pendingAdds.append(transfer)
        reaper.schedule(after: 0)
    }
    private var pendingAdds: [UpstreamTransfer] = []

    /// Stops a transfer; no further callbacks reach its owner. Safe inside curl callbacks: the handle
    /// is removed from the multi on the next loop iteration.
    func cancel(_ transfer: UpstreamTransfer) {
        guard transfers[transfer.easy] != nil else { return }
        pendingRemoval.append(transfer)
        reaper.schedule(after: 0)
    }

    private func reap() {
        let list = pendingRemoval
        pendingRemoval.removeAll()
        let adds = pendingAdds
        pendingAdds.removeAll()
        for t in list where transfers.removeValue(forKey: t.easy) != nil {
            if !adds.contains(where: { $0 === t }) { eddy_curl_multi_remove_handle(multi, t.easy) }
        }
        for t in adds where transfers[t.easy] != nil {
            if let why = t.refusal {
                // Refused by the gate: ends without ever reaching curl, so no socket is opened.
                transfers[t.easy] = nil
                onRefused?(t.request.url, why)
                t.finished(code: CURLE_COULDNT_CONNECT)
                continue
            }
            let rc = eddy_curl_multi_add_handle(multi, t.easy)
            if rc != CURLM_OK {
                transfers[t.easy] = nil
                t.finished(code: CURLE_FAILED_INIT)
            }
        }
    }

    /// Ends transfers that have waited longer than their connect timeout without their request going
    /// out. curl queues transfers beyond CURLMOPT_MAX_HOST_CONNECTIONS without a time limit, so
    /// transfers stuck on a slow origin would otherwise hold every later request to it (measured:
    /// 94 to 197 s). A busy origin is not a stuck one, though: while its connections turn over (a
    /// transfer to it got its head or ended within the connect timeout), a queued transfer waits
    /// on, up to three connect timeouts (a burst of 1,000 clients queued cold requests for 12 s
    /// behind working connections, and got 504s). Runs from a timer, never inside a curl callback.
    private func expireQueued() {
        guard !transfers.isEmpty else { return }
        let now = EventLoop.monotonic()
        // One entry per origin; the forward form can name many: forget the quiet ones.
        if lastTurnover.count > 1024 { lastTurnover = lastTurnover.filter { now - $0.value < 60 } }
        var expired: [UpstreamTransfer] = []
        for (_, t) in transfers where t.startedAt > 0 && !t.hasHead && now - t.startedAt > t.connectTimeout && !t.requestSent {
            let waited = now - t.startedAt
            let turning = lastTurnover[CurlMulti.hostKey(t)].map { now - $0 <= t.connectTimeout } ?? false
            if turning && waited <= 3 * t.connectTimeout { continue }
            expired.append(t)
        }
        for t in expired where transfers.removeValue(forKey: t.easy) != nil {
            if !pendingAdds.contains(where: { $0 === t }) { eddy_curl_multi_remove_handle(multi, t.easy) }
            // Waited in this loop's own queue for a connection: not a parent's failure.
            if !t.connectionStarted { t.parentOutcome = nil }
            t.finished(code: CURLE_OPERATION_TIMEDOUT)
        }
    }

    /// Resumes a paused transfer (outside curl callbacks).
    func resume(_ transfer: UpstreamTransfer) {
        guard transfers[transfer.easy] != nil else { return }
        eddy_curl_easy_pause(transfer.easy, CURLPAUSE_CONT)
        drainMessages()
    }

    private final class SocketWatch {
        var event: OpaquePointer?
        deinit { if let event { event_del(event); event_free(event) } }
    }

    private func socketChanged(fd: curl_socket_t, what: Int32, watch: UnsafeMutableRawPointer?) {
        if what == CURL_POLL_REMOVE {
            if let watch { Unmanaged<SocketWatch>.fromOpaque(watch).release() }
            eddy_curl_multi_assign(multi, fd, nil)
            return
        }
        let w: SocketWatch
        if let watch {
            w = Unmanaged<SocketWatch>.fromOpaque(watch).takeUnretainedValue()
            event_del(w.event)
            event_free(w.event)
        } else {
            w = SocketWatch()
            eddy_curl_multi_assign(multi, fd, Unmanaged.passRetained(w).toOpaque())
        }
        var flags: Int16 = eddy_EV_PERSIST
        if what == CURL_POLL_IN || what == CURL_POLL_INOUT { flags |= eddy_EV_READ }
        if what == CURL_POLL_OUT || what == CURL_POLL_INOUT { flags |= eddy_EV_WRITE }
        w.event = event_new(loop.base, fd, flags, { fd, events, arg in
            let me = Unmanaged<CurlMulti>.fromOpaque(arg!).takeUnretainedValue()
            var mask: Int32 = 0
            if events & eddy_EV_READ != 0 { mask |= CURL_CSELECT_IN }
            if events & eddy_EV_WRITE != 0 { mask |= CURL_CSELECT_OUT }
            var running: Int32 = 0
            eddy_curl_multi_socket_action(me.multi, fd, mask, &running)
            me.drainMessages()
        }, Unmanaged.passUnretained(self).toOpaque())
        event_add(w.event, nil)
    }

    /// When a transfer to each origin (host and port) last got its head or ended: its connections
    /// turn over, so transfers queued for one are waiting on a busy origin, not a stuck one.
    private var lastTurnover: [String: Double] = [:]

    static func hostKey(_ t: UpstreamTransfer) -> String { "\(t.request.url.host):\(t.request.url.port)" }

    /// A transfer got its head or ended.
    func noteTurnover(_ t: UpstreamTransfer) {
        lastTurnover[CurlMulti.hostKey(t)] = EventLoop.monotonic()
    }

    private func drainMessages() {
        var left: Int32 = 0
        while let msg = eddy_curl_multi_info_read(multi, &left) {
            guard msg.pointee.msg == CURLMSG_DONE, let easy = msg.pointee.easy_handle else { continue }
            let code = msg.pointee.data.result
            if code == CURLE_OK, let t = transfers[easy] { noteTurnover(t) }
            transfers[easy]?.willRemove(code: code)
            eddy_curl_multi_remove_handle(multi, easy)
            if let t = transfers.removeValue(forKey: easy) { t.finished(code: code) }
        }
    }
}
