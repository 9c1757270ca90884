import EddyLoop
import Glibc

/// Several event loops (`workers`). Each worker loop accepts its share of the proxy's
/// connections on its own SO_REUSEPORT listener, parses their requests and writes their replies;
/// the main loop is every resource's home for now: exchanges, fills, coordinators, the cache
/// index and downloads all stay on it, as with one loop, so a resource still has exactly one
/// coordinator and single-flight holds across loops by construction. Requests reach the home
/// through its mailbox as `RemoteRequest`s.
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
        for i in 1..<count {
            let w = try Worker(index: i, host: config.listenHost, port: port, limits: config.limits, budget: budget, home: mailbox,
                               logger: logger, snapshots: snapshots, answered: { [unowned self] in snapshotHitAnswered($0, $1) }) {
                [unowned self] in handle($0)
            }
            workers.append(w)
        }
    }

    /// Each loop's listener counters, the main loop's first (workers' at most 0.25 s old).
    var loopCounters: [Worker.Counters] { [Worker.Counters(server)] + workers.map(\.counters) }

    /// The client listeners' counters, summed over the loops.
    var listenerCounters: Worker.Counters {
        let all = loopCounters
        var c = all[0]
        for o in all.dropFirst() {
            c.openConnections += o.openConnections
            c.headerTimeouts += o.headerTimeouts
            c.shed += o.shed
            c.acceptFailures += o.acceptFailures
            c.repliesInFlight += o.repliesInFlight
            c.requests += o.requests
        }
        return c
    }
}
