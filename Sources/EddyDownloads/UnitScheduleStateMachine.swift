/// The unit scheduling of a download, as a value: which units of its plan are stored, being
/// fetched, or failed and waiting for their own backoff, and which to fetch next within the
/// window. `DownloadEngine.pump` asks `next` and starts what it is told; fetches report back
/// (`stored`, `failed`); a hold, a stop, a stall or a resume moves the units as a whole. Units
/// are plan indices; the fetches themselves stay with the job.
struct UnitScheduleStateMachine: Equatable {
    enum Next: Equatable {
        /// Fetch this unit now (report `started`).
        case fetch(Int)
        /// The window is full, or fetches are in flight and nothing else may start: their ends pump again.
        case busy
        /// Nothing in flight; the first unit waiting for its backoff may go at this time (monotonic).
        case wait(until: Double)
        /// Every unit is stored.
        case allStored
    }

    /// Per unit: stored, its bytes once stored, its consecutive failures.
    private(set) var done: [Bool] = []
    private(set) var bytes: [Int] = []
    private(set) var failures: [Int] = []
    /// Units settled without bytes (live segments gone from the origin); progress leaves them out.
    private(set) var dropped = Set<Int>()
    /// Units being fetched.
    private(set) var inFlight = Set<Int>()
    /// Failed units and when each may be asked for again (monotonic seconds).
    private(set) var notBefore: [Int: Double] = [:]
    /// The first unit that may still be pending: those before it are stored or in flight; those
    /// after it may be waiting for their backoff.
    private(set) var cursor = 0
    /// Progress sums kept as units change state (see `ProgressTally`).
    private(set) var tally = ProgressTally()

    var count: Int { done.count }
    var allStored: Bool { tally.pending == 0 }
    var storedCount: Int { count - tally.pending }

    /// A new plan of units with `facts`; `stored` holds those the cache has whole (their bytes, by index).
    mutating func reset(facts: [UnitFacts], stored: [Int: Int]) {
        let count = facts.count
        done = Array(repeating: false, count: count)
        bytes = Array(repeating: 0, count: count)
        failures = Array(repeating: 0, count: count)
        notBefore = [:]
        dropped = []
        cursor = 0
        tally.reset(facts)
        for (i, n) in stored where i < count { mark(i, bytes: n) }
    }

    /// Units with `facts` joined the plan (a recording grew); they are pending.
    mutating func grow(facts more: [UnitFacts]) {
        guard !more.isEmpty else { return }
        done += Array(repeating: false, count: more.count)
        bytes += Array(repeating: 0, count: more.count)
        failures += Array(repeating: 0, count: more.count)
        tally.grow(more)
    }

    /// The cache holds unit `i` whole (`bytes` long). Ignored when stored already or in flight
    /// (its fetch settles it). True when it was marked.
    mutating func settle(_ i: Int, bytes n: Int) -> Bool {
        guard i < count, !done[i], !inFlight.contains(i) else { return false }
        mark(i, bytes: n)
        return true
    }

    /// Unit `i` is stored with `n` bytes (its old bytes out of the sums if it was already).
    private mutating func mark(_ i: Int, bytes n: Int) {
        if dropped.contains(i) {
            dropped.remove(i)
            tally.restore(i)
        } else if done[i] {
            tally.lose(i, bytes: bytes[i])
        }
        (done[i], bytes[i]) = (true, n)
        tally.store(i, bytes: n)
    }

    /// The next unit to fetch, with `window` fetches at most in flight, at `now`.
    mutating func next(now: Double, window: Int) -> Next {
        while cursor < count && (done[cursor] || inFlight.contains(cursor)) { cursor += 1 }
        var due: Double?
        var i = cursor
        while inFlight.count < window && i < count {
            defer { i += 1 }
            if done[i] || inFlight.contains(i) { continue }
            if let t = notBefore[i], t > now {
                due = Swift.min(due ?? t, t)
                continue
            }
            return .fetch(i)
        }
        guard inFlight.isEmpty else { return .busy }
        if allStored { return .allStored }
        return due.map { .wait(until: $0) } ?? .busy
    }

    /// A fetch of unit `i` started.
    mutating func started(_ i: Int) { inFlight.insert(i) }

    /// Unit `i` is stored, `n` bytes long.
    mutating func stored(_ i: Int, bytes n: Int) {
        inFlight.remove(i)
        mark(i, bytes: n)
        failures[i] = 0
        notBefore[i] = nil
    }

    /// Unit `i` failed (its fetch ended, or it could not start); it is asked for again at
    /// `retryAt(failures)`, its own backoff. Returns its consecutive failures.
    @discardableResult
    mutating func failed(_ i: Int, retryAt: (Int) -> Double) -> Int {
        inFlight.remove(i)
        failures[i] += 1
        cursor = Swift.min(cursor, i)
        notBefore[i] = retryAt(failures[i])
        return failures[i]
    }

    /// Unit `i` is settled without bytes (a live segment gone from the origin).
    mutating func drop(_ i: Int) {
        inFlight.remove(i)
        notBefore[i] = nil
        guard !dropped.contains(i) else { return }
        if done[i] { tally.lose(i, bytes: bytes[i]) }
        tally.drop(i)
        (done[i], bytes[i]) = (true, 0)
        dropped.insert(i)
    }

    /// Unit `i` is no longer held whole (its bytes were evicted or found damaged): fetch it again.
    mutating func lost(_ i: Int) {
        guard done[i] else { return }
        if dropped.remove(i) != nil { tally.restore(i) } else { tally.lose(i, bytes: bytes[i]) }
        (done[i], bytes[i]) = (false, 0)
        cursor = Swift.min(cursor, i)
    }

    /// Makes stale loaded ranges again (after `lost`); see `ProgressTally.refreshLoaded`.
    mutating func refreshLoaded() {
        let (done, dropped) = (done, dropped)
        tally.refreshLoaded { done[$0] && !dropped.contains($0) }
    }

    /// Every fetch in flight stops and its unit is pending again, not before `until` when given
    /// (the origin's Retry-After). Returns the units whose fetches are to be cancelled.
    mutating func stopFetches(until: Double? = nil) -> [Int] {
        let stopped = inFlight.sorted()
        for i in stopped {
            if let until { notBefore[i] = Swift.max(notBefore[i] ?? 0, until) }
            cursor = Swift.min(cursor, i)
        }
        inFlight.removeAll()
        return stopped
    }

    /// The job runs again: every unit may be asked for at once.
    mutating func resume() {
        notBefore = [:]
        cursor = 0
    }
}
