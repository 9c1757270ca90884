import EddyCache
import EddyCore
import EddyHLS
import EddyLoop
import EddyResources
import EddyServing
import EddyTLS
import Glibc
import Logging

/// A worker loop: a thread with its own event_base, its own SO_REUSEPORT listener on the
/// proxy's port (the kernel spreads client connections over the cores), and its `Home`: the home
/// of its share of the resources (their cache stripe, coordinators and fills, with its own curl
/// multi handle). It parses requests and writes replies (sendfile included), and takes them as
/// the main loop does (`Home.accept`). It counts what it answered; the access log is written on
/// the main loop, each line posted there once its response is answered.
final class Worker {
    /// A TLS address the worker listens on too, with the main loop's bound port and budget.
    struct TLSListener {
        let host: String
        let port: Int
        let budget: ConnectionBudget
        let context: TLSServerContext
    }

    /// What the main loop hands a worker.
    struct Setup {
        let host: String
        let port: Int
        let limits: HTTPServerLimits
        let budget: ConnectionBudget
        let tls: [TLSListener]
        let logger: Logger
        /// What every home is built from.
        let shared: Home.Shared
        /// The worker's own cache stripe.
        let store: CacheStore
        /// Hands the access log line of a response this worker answered to the main loop.
        let log: (AnsweredRequest, ExchangeOutcome) -> Void
    }

    /// What lives on the worker's thread (made there, touched only there).
    private final class Local {
        var server: HTTPServer!
        var tlsServers: [HTTPServer] = []
        var home: Home!
        let metrics = Metrics()
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
        self.index = index
        self.setup = setup
        thread = try LoopThread(name: "eddy-w\(index)") { loop, mailbox in
            let home = Home(index: index, loop: loop, mailbox: mailbox, store: setup.store, metrics: local.metrics,
                            shared: setup.shared, log: setup.log)
            setup.shared.homes.install(home)
            setup.shared.resourceHomes.install(home.resources)
            local.home = home
            local.tick = LoopTimer(loop: loop, repeating: true) { home.resources.tick() }
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
        try thread.startUp {
            let server = try HTTPServer(loop: loop, host: setup.host, port: setup.port, limits: setup.limits, sharing: .join)
            setup.budget.join(server) { job in mailbox.post(job) }
            let home = local.home!
            server.handler = { home.accept($0) }
            server.onWarning = { setup.logger.warning("\($0)", metadata: ["worker": "\(index)"]) }
            local.server = server
            for t in setup.tls {
                let s = try HTTPServer(loop: loop, host: t.host, port: t.port, limits: setup.limits, sharing: .join)
                s.tls = t.context
                t.budget.join(s) { job in mailbox.post(job) }
                s.handler = { home.accept($0) }
                s.onWarning = server.onWarning
                local.tlsServers.append(s)
            }
            local.publish = LoopTimer(loop: loop, repeating: true) {
                var c = WorkerCounters(server)
                c.upstreamActive = home.resources.curl.activeCount
                c.exchanges = home.responses.count
                published.withLock { $0 = c }
            }
            local.publish.schedule(after: 0.1)
        }
    }

    /// The listener's counters, at most a tenth of a second old.
    var counters: WorkerCounters { published.withLock { $0 } }

    /// Applies the client limits of a reload (new requests and connections); what the home
    /// takes from a reload is applied to every home (`Proxy.reloadConfiguration`).
    func apply(limits: HTTPServerLimits) {
        thread.mailbox.post { [local] in
            local.server?.limits = limits
            for s in local.tlsServers { s.limits = limits }
        }
    }

    /// Stops accepting (the drain); connections already open are served on, but tunnels, which
    /// may stay open for hours, are closed: they do not hold the drain.
    func stopAccepting() {
        thread.mailbox.post { [local] in
            local.server?.stopAccepting()
            for s in local.tlsServers { s.stopAccepting() }
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
            for s in local.tlsServers { s.stopAccepting() }
            let poll = LoopTimer(loop: loop, repeating: true) {
                let idle = (local.server?.repliesInFlight ?? 0) == 0 && local.home.responses.count == 0
                    && local.tlsServers.allSatisfy { $0.repliesInFlight == 0 }
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
        local.tlsServers.removeAll()
    }
}
