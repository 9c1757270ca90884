import EddyCore
import EddyHLS
import EddyLoop
import Glibc
import Logging

/// A worker loop: a thread with its own event_base, its own SO_REUSEPORT listener on the
/// proxy's port (the kernel spreads client connections over the cores) and its own curl multi
/// handle. It parses requests and writes replies (sendfile included). It answers itself what
/// needs no resource: published hits (`HitSnapshots`), refusals, and pass-through responses
/// (`DirectExchange` with its own upstream client). Every other request is answered by an
/// exchange on the home loop of its resource, reached through the home's mailbox
/// (`RemoteRequest`); what only the home may do for the worker's own responses (the access
/// log, learning a playlist, invalidation) is posted there too.
final class Worker {
    /// What the main loop hands a worker to build its own upstream side and to reach home.
    struct Setup {
        let host: String
        let port: Int
        let limits: HTTPServerLimits
        let budget: ConnectionBudget
        let home: LoopMailbox
        let logger: Logger
        let routing: Routing
        let cacheAvailable: Bool
        let maxPerHost: Int
        let timeouts: UpstreamTransfer.Timeouts
        let via: String
        let forwardClientAddress: Bool
        let trustedProxies: Set<String>
        let connectPolicy: ConnectExchange.Policy
        let snapshots: HitSnapshots
        /// At home: a hit answered from a snapshot here.
        let snapshotAnswered: (AnsweredRequest, ExchangeOutcome) -> Void
        /// At home: a response this worker answered itself (the access log, the request-level counts).
        let recorded: (AnsweredRequest, ExchangeOutcome) -> Void
        /// At home: learn a playlist that passed through; invalidate after an unsafe method.
        let learn: (HLSPlaylist, UpstreamURL) -> Void
        let invalidate: (UpstreamURL, [String?]) -> Void
        /// At home: answer a request there.
        let handle: (any ClientRequest) -> Void
    }

    /// What lives on the worker's thread (made there, touched only there).
    private final class Local {
        var server: HTTPServer!
        var curl: CurlMulti!
        var passThrough: PassThroughServices!
        let metrics = Metrics()
        /// Pass-through responses and tunnels in flight.
        lazy var responses = LoopResponses(metrics: metrics)
        var publish: LoopTimer!
        /// Publishes `metrics` for the main loop (after each response this loop finished).
        var publishMetrics: (() -> Void)?
        var quiesce: LoopTimer?
    }

    private let thread: LoopThread
    private let local = Local()
    /// Written by the worker, read by the main loop.
    private let published = Locked(WorkerCounters())
    private let publishedMetrics = Locked(Metrics())

    /// Starts worker `index` on `setup.host:setup.port` (already bound with SO_REUSEPORT by the
    /// main loop).
    init(index: Int, _ setup: Setup) throws {
        let (local, published, publishedMetrics) = (local, published, publishedMetrics)
        let home = setup.home
        thread = try LoopThread(name: "eddy-w\(index)") { loop, mailbox in
            let server = try HTTPServer(loop: loop, host: setup.host, port: setup.port, limits: setup.limits, sharing: .join)
            setup.budget.join(server) { job in mailbox.post(job) }
            let curl = CurlMulti(loop: loop, maxPerHost: setup.maxPerHost)
            curl.gate = setup.routing.resolver.gate
            curl.onConnected = { local.metrics.upstreamConnect.observe($0) }
            curl.onRefused = { url, why in
                setup.logger.warning("upstream fetch refused", metadata: ["url": "\(url)", "reason": "\(why)", "worker": "\(index)"])
            }
            let upstream = UpstreamClient(curl: curl, timeouts: setup.timeouts, metrics: local.metrics, via: setup.via)
            let passThrough = PassThroughServices(
                loop: loop, upstream: upstream, metrics: local.metrics, logger: setup.logger, routing: setup.routing,
                learn: { p, u in home.post { setup.learn(p, u) } },
                invalidate: { u, others in
                    // Before this response goes out, so that the client's next request, on
                    // whichever loop, can not get a hit on what it has just changed: this loop's
                    // snapshots are gone now, and the home handles the invalidation before any
                    // request posted after it.
                    for t in ExchangeServices.invalidationTargets(u, alsoNamedBy: others) {
                        setup.snapshots.revoke(key: t.description)
                    }
                    home.post { setup.invalidate(u, others) }
                },
                finished: { request, outcome in
                    local.responses.finished(request)
                    // Counted before the client can ask /metrics about it, not a timer tick later.
                    local.publishMetrics?()
                    let summary = AnsweredRequest(request)
                    home.post { setup.recorded(summary, outcome) }
                })
            passThrough.forwardClientAddress = setup.forwardClientAddress
            passThrough.trustedProxies = setup.trustedProxies
            server.handler = { request in
                if let outcome = setup.snapshots.answer(request, now: loop.wallClock()) {
                    let summary = AnsweredRequest(request)
                    home.post { setup.snapshotAnswered(summary, outcome) }
                    return
                }
                Worker.answer(request, local: local, setup: setup, mailbox: mailbox)
            }
            server.onWarning = { setup.logger.warning("\($0)", metadata: ["worker": "\(index)"]) }
            (local.server, local.curl, local.passThrough) = (server, curl, passThrough)
            local.publishMetrics = {
                let m = local.metrics.copy()
                publishedMetrics.withLock { $0 = m }
            }
            local.publish = LoopTimer(loop: loop, repeating: true) {
                var c = WorkerCounters(server)
                c.upstreamActive = curl.activeCount
                c.exchanges = local.responses.count
                published.withLock { $0 = c }
                local.publishMetrics?()
            }
            local.publish.schedule(after: 0.1)
        }
    }

    /// Answers here what needs no resource; sends the rest home.
    private static func answer(_ request: ServerRequest, local: Local, setup: Setup, mailbox: LoopMailbox) {
        guard request.method != "CONNECT" else {
            // A tunnel takes over the connection's socket: here, on the connection's loop.
            local.metrics.requests += 1
            return local.responses.tunnel(request, services: local.passThrough, policy: setup.connectPolicy)
        }
        switch RequestPlan.make(method: request.method, uri: request.uri, headers: request.headers,
                                resolver: setup.routing.resolver, cacheAvailable: setup.cacheAvailable) {
        case .home:
            let remote = RemoteRequest(request, connection: mailbox, home: setup.home)
            setup.home.post { setup.handle(remote) }
        case let .refuse(status, reason, forward, allow):
            local.metrics.requests += 1
            // Recorded as a pass-through response is (counted here, logged at home).
            local.passThrough.finished(request, RequestPlan.refuse(request, status: status, reason: reason, forward: forward, allow: allow))
        case let .passThrough(url, form, checkAddress, reason):
            local.metrics.requests += 1
            local.responses.passThrough(request, services: local.passThrough, url: url, form: form,
                                        checkAddress: checkAddress, reason: reason)
        }
    }

    /// The listener's counters, at most a tenth of a second old.
    var counters: WorkerCounters { published.withLock { $0 } }

    /// The worker's own counters (its pass-through responses), at most a tenth of a second old.
    var metrics: Metrics { publishedMetrics.withLock { $0 } }

    /// Applies what a reload changes here: client limits (new requests and connections), the
    /// upstream gate, and the forwarded fields of pass-through responses.
    func apply(limits: HTTPServerLimits, gate: UpstreamGate, forwardClientAddress: Bool, trustedProxies: Set<String>) {
        thread.mailbox.post { [local] in
            local.server.limits = limits
            local.curl.gate = gate
            local.passThrough.forwardClientAddress = forwardClientAddress
            local.passThrough.trustedProxies = trustedProxies
        }
    }

    /// Stops accepting (the drain); connections already open are served on, but tunnels, which
    /// may stay open for hours, are closed: they do not hold the drain.
    func stopAccepting() {
        thread.mailbox.post { [local] in
            local.server.stopAccepting()
            local.responses.closeTunnels()
        }
    }

    /// Lets the worker's own responses and the replies still being written finish (until
    /// `deadline`, monotonic), then stops the loop and waits for the thread. Called once the home
    /// loop has no exchange left.
    func finish(deadline: Double) {
        let loop = thread.loop
        thread.mailbox.post { [local] in
            local.server.stopAccepting()
            let poll = LoopTimer(loop: loop, repeating: true) {
                let idle = local.server.repliesInFlight == 0 && local.responses.count == 0
                if idle || EventLoop.monotonic() > deadline { loop.stop() }
            }
            poll.schedule(after: 0)
            local.quiesce = poll
        }
        thread.join()
        // The worker's loop objects go with its thread's last turn; drop them before the base.
        local.publish = nil
        local.publishMetrics = nil
        local.quiesce = nil
        local.responses.removeAll()
        local.passThrough = nil
        local.curl = nil
        local.server = nil
    }
}
