import EddyLoop
import Glibc

/// Several event loops (`workers`). Each worker loop accepts its share of the proxy's
/// connections on its own SO_REUSEPORT listener, parses their requests and writes their replies,
/// and runs what needs no resource itself (published hits, refusals, pass-through responses with
/// its own curl multi handle). The main loop is every resource's home for now: cache exchanges,
/// fills, coordinators, the cache index and downloads all stay on it, as with one loop, so a
/// resource still has exactly one coordinator and single-flight holds across loops by
/// construction. Those requests reach the home through its mailbox as `RemoteRequest`s.
extension Proxy {
    /// The loops to run: `workers`, or one per core for 0 (auto).
    static func loopCount(_ config: ProxyConfig) -> Int {
        config.workers > 0 ? config.workers : max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }

    /// Starts `count - 1` worker loops on the port the main loop's listener bound.
    /// `max_connections` bounds the connections of every loop together (`ConnectionBudget`).
    func startWorkers(count: Int, port: Int) throws {
        let snapshots = services.hitSnapshots ?? HitSnapshots() // none when the cache is unavailable: never published
        let budget = ConnectionBudget()
        budget.join(server) { [mailbox] job in mailbox.post(job) }
        let setup = Worker.Setup(
            host: config.listenHost, port: port, limits: config.limits, budget: budget, home: mailbox, logger: logger,
            routing: routing, cacheAvailable: store.isAvailable, maxPerHost: config.maxUpstreamPerHost,
            timeouts: config.upstreamTimeouts, via: upstream.via, forwardClientAddress: services.passThrough.forwardClientAddress,
            trustedProxies: services.passThrough.trustedProxies, connectPolicy: connectPolicy, snapshots: snapshots,
            snapshotAnswered: { [unowned self] in snapshotHitAnswered($0, $1) },
            recorded: { [unowned self] in record($0, $1) },
            learn: { [unowned self] in playlists.learn($0, url: $1) },
            invalidate: { [unowned self] in services.invalidate($0, alsoNamedBy: $1) },
            handle: { [unowned self] in handle($0) })
        for i in 1..<count { workers.append(try Worker(index: i, setup)) }
    }

    /// Each loop's listener counters, the main loop's first (workers' at most 0.1 s old).
    var loopCounters: [WorkerCounters] {
        var main = WorkerCounters(server)
        main.upstreamActive = curl.activeCount
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
            c.repliesInFlight += o.repliesInFlight
            c.requests += o.requests
            c.upstreamActive += o.upstreamActive
            c.exchanges += o.exchanges
        }
        return c
    }

    /// The counters of every loop together (workers' at most 0.1 s old): the main loop's, with
    /// the workers' pass-through responses added. Requests are recorded on the main loop, so its
    /// per-minute windows and first-byte histograms are the whole of them.
    var summedMetrics: Metrics {
        let total = metrics.copy()
        total.rolling = metrics.rolling
        total.firstByte = metrics.firstByte
        for w in workers { total.add(w.metrics) }
        return total
    }
}
