/// Whether one origin (scheme, host and port) can be reached, as a value with no I/O.
///
/// An origin is marked unreachable by a connect or DNS failure, a timeout, silence for
/// `offline_wait` while a client waited on it, or, for a download's resource, an answer of the
/// wrong kind (a captive portal's HTML or a redirect to its login page). While it is unreachable
/// no client request waits on it: a download's copies are served at once. One probe at a time,
/// with capped exponential backoff, finds out when it is back; any answer of the right kind
/// marks it reachable again.
package struct OriginHealthStateMachine: Equatable {
    enum State: Equatable {
        case reachable
        /// Since `since` (monotonic seconds); the next probe may start at `probeAt`.
        case unreachable(since: Double, probeAt: Double)
        /// A probe went out at `startedAt` and has not been heard of.
        case probing(since: Double, startedAt: Double)
    }

    private(set) var state = State.reachable
    /// Consecutive failures since the origin was last reachable (the probe backoff's exponent).
    private(set) var failures = 0

    /// The first probe waits this long after the origin was marked unreachable, doubling up to `maxBackoff`.
    static let firstBackoff = 1.0
    static let maxBackoff = 30.0
    /// A probe not heard of after this long is taken as lost: another may start.
    static let probeLimit = 60.0

    var isUnreachable: Bool { state != .reachable }

    /// A failure that says the origin is not there (see the type's comment). Returns true when
    /// this marks a reachable origin unreachable (worth a log line).
    @discardableResult
    mutating func failed(now: Double) -> Bool {
        failures += 1
        let wait = min(Self.maxBackoff, Self.firstBackoff * Double(1 << min(failures - 1, 16)))
        switch state {
        case .reachable:
            state = .unreachable(since: now, probeAt: now + wait)
            return true
        case let .unreachable(since, _), let .probing(since, _):
            state = .unreachable(since: since, probeAt: now + wait)
            return false
        }
    }

    /// The origin answered as it should. Returns true when this marks an unreachable origin
    /// reachable again.
    @discardableResult
    mutating func answered() -> Bool {
        failures = 0
        defer { state = .reachable }
        return state != .reachable
    }

    /// Whether the caller should send the probe now; if so it is counted as out.
    mutating func claimProbe(now: Double) -> Bool {
        switch state {
        case .reachable: return false
        case let .unreachable(since, probeAt):
            guard now >= probeAt else { return false }
            state = .probing(since: since, startedAt: now)
            return true
        case let .probing(since, startedAt):
            guard now - startedAt >= Self.probeLimit else { return false }
            state = .probing(since: since, startedAt: now)
            return true
        }
    }
}
