import EddyCache
import EddyCore
import EddyHLS
import EddyLoop
import Glibc
import Logging

/// A worker loop: a thread with its own event_base, its own SO_REUSEPORT listener on the
/// proxy's port (the kernel spreads client connections over the cores), and its `Home`: the home
/// of its share of the resources (their cache stripe, coordinators and fills, with its own curl
/// multi handle). It parses requests and writes replies (sendfile included). It answers itself
/// published hits (`HitSnapshots`), refusals, pass-through responses and CONNECT tunnels, and the
/// requests for resources it is home to; a request for a resource homed elsewhere goes to that
/// home's mailbox (`RemoteRequest`). The access log and request-level counts are kept on the main
/// loop: each response is posted there once answered.
final class Worker {
    /// What the main loop hands a worker.
    struct Setup {
        let host: String
        let port: Int
        let limits: HTTPServerLimits
        let budget: ConnectionBudget
        /// The main loop.
        let main: LoopMailbox
        let logger: Logger
        let routing: Routing
        let cacheAvailable: Bool
        let connectPolicy: ConnectExchange.Policy
        let snapshots: HitSnapshots
        /// What every home is built from.
        let shared: Home.Shared
        /// The worker's own cache stripe.
        let store: CacheStore
        /// Every loop's per-minute windows and first-byte histograms.
        let stats: RequestStats
        /// At the main loop: the access log line of a response this worker answered (counted
        /// here); posted only when the access log is on.
        let logged: (AnsweredRequest, ExchangeOutcome) -> Void
        let logsAccess: Bool
    }

    /// What lives on the worker's thread (made there, touched only there).
    private final class Local {
        var server: HTTPServer!
        var home: Home!
        let metrics = Metrics()
        let touches = HomeTouches()
        var publish: LoopTimer!
        var tick: LoopTimer!
        var quiesce: LoopTimer?
    }

    private let thread: LoopThread
    private let local = Local()
    /// Written by the worker, read by the main loop.
    private let published = Locked(WorkerCounters())

    /// Starts worker `index` and installs its home (`index` among the homes). It answers
    /// nothing until `startServing`, which waits for every home to be installed: a request may
    /// be for any of them.
    init(index: Int, _ setup: Setup) throws {
        let local = local
        let main = setup.main
        self.index = index
        self.setup = setup
        thread = try LoopThread(name: "eddy-w\(index)") { loop, mailbox in
            let home = Home(index: index, loop: loop, mailbox: mailbox, store: setup.store, metrics: local.metrics,
                            shared: setup.shared) { request, outcome in
                local.home.responses.finished(request)
                let summary = AnsweredRequest(request)
                // Counted as it ends, before its client can ask /metrics (which asks every loop).
                Proxy.count(summary, outcome, in: local.metrics, stats: setup.stats, now: loop.wallClock())
                if setup.logsAccess { main.post { setup.logged(summary, outcome) } }
            }
            setup.shared.homes.install(home)
            local.home = home
            local.tick = LoopTimer(loop: loop, repeating: true) { home.tick() }
            local.tick.schedule(after: 0.5)
        }
    }
    private let index: Int
    private let setup: Setup

    /// Opens the worker's listener on `setup.host:setup.port` (bound with SO_REUSEPORT by the
    /// main loop) and starts answering; returns once it listens, or throws why it could not.
    func startServing() throws {
        let (local, published, setup, index) = (local, published, setup, index)
        let (loop, mailbox) = (thread.loop, thread.mailbox)
        let main = setup.main
        let result = Locked<Result<Void, Error>?>(nil)
        mailbox.post {
            result.withLock { $0 = Result {
                let server = try HTTPServer(loop: loop, host: setup.host, port: setup.port, limits: setup.limits, sharing: .join)
                setup.budget.join(server) { job in mailbox.post(job) }
                server.handler = { request in
                    if let outcome = setup.snapshots.answer(request, now: loop.wallClock()) {
                        let summary = AnsweredRequest(request)
                        Proxy.countSnapshotHit(outcome, in: local.metrics)
                        Proxy.count(summary, outcome, in: local.metrics, stats: setup.stats, now: loop.wallClock())
                        if let key = outcome.cacheKey,
                           local.touches.due(key, now: loop.wallClock(), prefetching: setup.shared.directory.hasSegments) {
                            setup.shared.homes.run(onHomeOf: key) { $0.snapshotHit(key: key) }
                        }
                        if setup.logsAccess { main.post { setup.logged(summary, outcome) } }
                        return
                    }
                    Worker.answer(request, local: local, setup: setup, mailbox: mailbox)
                }
                server.onWarning = { setup.logger.warning("\($0)", metadata: ["worker": "\(index)"]) }
                local.server = server
                let home = local.home!
                local.publish = LoopTimer(loop: loop, repeating: true) {
                    var c = WorkerCounters(server)
                    c.upstreamActive = home.curl.activeCount
                    c.exchanges = home.responses.count
                    published.withLock { $0 = c }
                }
                local.publish.schedule(after: 0.1)
            } }
        }
        // The set-up is short (a listener): wait for it as `LoopThread` waits for its own.
        while true {
            if let r = result.withLock({ $0 }) { return try r.get() }
            usleep(200)
        }
    }

    /// Answers here what this loop may; sends requests for resources homed elsewhere there.
    private static func answer(_ request: ServerRequest, local: Local, setup: Setup, mailbox: LoopMailbox) {
        let home = local.home!
        guard request.method != "CONNECT" else {
            // A tunnel takes over the connection's socket: here, on the connection's loop.
            local.metrics.requests += 1
            return home.responses.tunnel(request, services: home.services.passThrough, policy: setup.connectPolicy)
        }
        switch RequestPlan.make(method: request.method, uri: request.uri, headers: request.headers,
                                resolver: setup.routing.resolver, cacheAvailable: setup.cacheAvailable) {
        case let .home(url, form, checkAddress):
            let target = setup.shared.homes.home(of: url.description)
            guard target !== home else { return home.answer(request, url: url, form: form, checkAddress: checkAddress) }
            let remote = RemoteRequest(request, connection: mailbox, home: target.mailbox)
            target.mailbox.post { target.answer(remote, url: url, form: form, checkAddress: checkAddress) }
        case let .refuse(status, reason, forward, allow):
            local.metrics.requests += 1
            // Recorded as a pass-through response is (counted here, logged on the main loop).
            home.services.passThrough.finished(request, RequestPlan.refuse(request, status: status, reason: reason, forward: forward, allow: allow))
        case let .passThrough(url, form, checkAddress, reason):
            local.metrics.requests += 1
            home.responses.passThrough(request, services: home.services.passThrough, url: url, form: form,
                                       checkAddress: checkAddress, reason: reason)
        }
    }

    /// The listener's counters, at most a tenth of a second old.
    var counters: WorkerCounters { published.withLock { $0 } }

    /// Applies the client limits of a reload (new requests and connections); what the home
    /// takes from a reload is applied to every home (`Proxy.reloadConfiguration`).
    func apply(limits: HTTPServerLimits) {
        thread.mailbox.post { [local] in local.server?.limits = limits }
    }

    /// Stops accepting (the drain); connections already open are served on, but tunnels, which
    /// may stay open for hours, are closed: they do not hold the drain.
    func stopAccepting() {
        thread.mailbox.post { [local] in
            local.server?.stopAccepting()
            local.home.responses.closeTunnels()
        }
    }

    /// Lets the worker's own responses and the replies still being written finish (until
    /// `deadline`, monotonic), then stops the loop and waits for the thread. Called once the home
    /// loop has no exchange left.
    func finish(deadline: Double) {
        let loop = thread.loop
        thread.mailbox.post { [local] in
            local.server?.stopAccepting()
            let poll = LoopTimer(loop: loop, repeating: true) {
                let idle = (local.server?.repliesInFlight ?? 0) == 0 && local.home.responses.count == 0
                if idle || EventLoop.monotonic() > deadline { loop.stop() }
            }
            poll.schedule(after: 0)
            local.quiesce = poll
        }
        thread.join()
        // The worker's loop objects go with its thread's last turn; drop them before the base.
        local.publish = nil
        local.tick = nil
        local.quiesce = nil
        local.home?.responses.removeAll()
        local.server = nil
    }
}
