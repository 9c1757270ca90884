import EddyLoop
import EddyResources
import EddyServing
import Glibc

/// Several event loops (`workers`). Each worker loop accepts its share of the proxy's
/// connections on its own SO_REUSEPORT listener, parses their requests and writes their replies,
/// and is the home of its share of the resources (see `Homes`): their cache stripe, coordinators
/// and fills, with its own curl multi handle. A request for a resource homed on another loop
/// reaches that home through its mailbox as a `RemoteRequest`, so a resource still has exactly
/// one coordinator and single-flight holds across loops by construction. The download engine,
/// the admin API and the access log stay on the main loop.
extension Proxy {
    /// The loops to run: `workers`, or one per core for 0 (auto).
    static func loopCount(_ config: ProxyConfig) -> Int {
        config.workers > 0 ? config.workers : max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }

    /// Starts `count - 1` worker loops on the port the main loop's listener bound.
    /// `max_connections` bounds the connections of every loop together (`ConnectionBudget`).
    func startWorkers(count: Int, port: Int, shared: Home.Shared) throws {
        let budget = ConnectionBudget()
        budget.join(server) { [mailbox] job in mailbox.post(job) }
        let tls = tlsSetups()
        for i in 1..<count {
            // Access-log lines go to the main loop, and only when the log is on (a post wakes it).
            let log: (AnsweredRequest, ExchangeOutcome) -> Void = accessLog.isEnabled
                ? { [mailbox, unowned self] request, outcome in mailbox.post { self.log(request, outcome) } } : { _, _ in }
            let setup = Worker.Setup(host: config.listenHost, port: port, limits: config.limits, budget: budget, tls: tls, logger: logger,
                                     shared: shared, store: stores[i], log: log)
            workers.append(try Worker(index: i, setup))
        }
        // Every home is installed: the workers may answer now (a request may be for any home).
        for w in workers { try w.startServing() }
    }

    /// Each loop's listener counters, the main loop's first (workers' at most 0.1 s old).
    var loopCounters: [WorkerCounters] {
        var main = WorkerCounters(server)
        main.upstreamActive = home.resources.curl.activeCount
        main.exchanges = responses.count
        return [main] + workers.map(\.counters)
    }

    /// The client listeners' counters, summed over the loops.
    var listenerCounters: WorkerCounters {
        let all = loopCounters
        var c = all[0]
        for o in all.dropFirst() {
            c.openConnections += o.openConnections
            c.headerTimeouts += o.headerTimeouts
            c.shed += o.shed
            c.acceptFailures += o.acceptFailures
            c.handedOff += o.handedOff
            c.repliesInFlight += o.repliesInFlight
            c.requests += o.requests
            c.upstreamActive += o.upstreamActive
            c.exchanges += o.exchanges
        }
        return c
    }

    /// The counters of every loop, each copied on its loop, so that whatever a loop counted
    /// before the question is in the answer; with the bytes each holds in memory.
    func loopMetrics(then done: @escaping ([(metrics: Metrics, memory: Int)]) -> Void) {
        resourceHomes.askAll({ ($0.metrics.copy(), $0.memory.used) }, then: done)
    }

    /// The counters of loops (`loopMetrics`) together, with the per-minute windows and
    /// first-byte histograms every loop records into (`RequestStats`).
    func summed(_ all: [Metrics]) -> Metrics {
        let total = Metrics()
        for m in all { total.add(m) }
        total.rolling = requestStats.rolling
        total.firstByte = requestStats.firstByte
        return total
    }
}
