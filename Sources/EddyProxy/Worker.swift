import EddyLoop
import Glibc
import Logging

/// A worker loop: a thread with its own event_base and its own SO_REUSEPORT listener on the
/// proxy's port, so the kernel spreads client connections over the cores. It parses requests
/// and writes replies (sendfile included); each request is answered by an exchange on the home
/// loop of its resource, reached through the home's mailbox (`RemoteRequest`).
final class Worker {
    /// The listener's counters, as the worker last published them (for /metrics, which is read
    /// on another thread).
    struct Counters {
        var openConnections = 0
        var headerTimeouts = 0
        var shed = 0
        var acceptFailures = 0
        var repliesInFlight = 0
        var requests = 0

        /// The counters of `server`; call on its loop.
        init(_ server: HTTPServer) {
            openConnections = server.openConnections
            headerTimeouts = server.headerTimeouts
            shed = server.shed
            acceptFailures = server.acceptFailures
            repliesInFlight = server.repliesInFlight
            requests = server.requestsAccepted
        }

        init() {}
    }

    /// What lives on the worker's thread (made there, touched only there).
    private final class Local {
        var server: HTTPServer!
        var publish: LoopTimer!
        var quiesce: LoopTimer?
    }

    private let thread: LoopThread
    private let local = Local()
    /// Written by the worker, read by the main loop.
    private let published = Locked(Counters())

    /// Starts worker `index`, listening on `host:port` (already bound with SO_REUSEPORT by the
    /// home loop). `handle` runs on the home loop with each request.
    /// `snapshots` answers plain small hits here; `answered` runs at home for each of them.
    init(index: Int, host: String, port: Int, limits: HTTPServerLimits, budget: ConnectionBudget, home: LoopMailbox, logger: Logger,
         snapshots: HitSnapshots, answered: @escaping (AnsweredRequest, ExchangeOutcome) -> Void,
         handle: @escaping (any ClientRequest) -> Void) throws {
        let (local, published) = (local, published)
        thread = try LoopThread(name: "eddy-w\(index)") { loop, mailbox in
            let server = try HTTPServer(loop: loop, host: host, port: port, limits: limits, sharing: .join)
            budget.join(server) { job in mailbox.post(job) }
            server.handler = { request in
                if let outcome = snapshots.answer(request, now: loop.wallClock()) {
                    let summary = AnsweredRequest(request)
                    home.post { answered(summary, outcome) }
                    return
                }
                let remote = RemoteRequest(request, connection: mailbox, home: home)
                home.post { handle(remote) }
            }
            server.onWarning = { logger.warning("\($0)", metadata: ["worker": "\(index)"]) }
            local.server = server
            local.publish = LoopTimer(loop: loop, repeating: true) {
                published.withLock { $0 = Counters(server) }
            }
            local.publish.schedule(after: 0.25)
        }
    }

    /// The listener's counters, at most a quarter of a second old.
    var counters: Counters { published.withLock { $0 } }

    /// Applies new client limits (a reload) to new requests and connections.
    func apply(_ limits: HTTPServerLimits) {
        thread.mailbox.post { [local] in local.server.limits = limits }
    }

    /// Stops accepting (the drain); connections already open are served on.
    func stopAccepting() {
        thread.mailbox.post { [local] in local.server.stopAccepting() }
    }

    /// Lets the replies still being written finish (until `deadline`, monotonic), then stops the
    /// loop and waits for the thread. Called once the home loop has no exchange left.
    func finish(deadline: Double) {
        let loop = thread.loop
        thread.mailbox.post { [local] in
            local.server.stopAccepting()
            let poll = LoopTimer(loop: loop, repeating: true) {
                if local.server.repliesInFlight == 0 || EventLoop.monotonic() > deadline { loop.stop() }
            }
            poll.schedule(after: 0)
            local.quiesce = poll
        }
        thread.join()
        // The worker's loop objects go with its thread's last turn; drop them before the base.
        local.publish = nil
        local.quiesce = nil
        local.server = nil
    }
}
