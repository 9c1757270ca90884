/// The life of a graceful stop, as a value with no I/O (issue 30): serving, then draining once
/// SIGTERM or SIGINT comes (listeners closed, responses in flight let finish) until every loop is
/// idle or the grace period is over, then stopped. A second signal stops at once: whoever sends
/// it wants eddy gone now. `Proxy` performs the actions.
struct DrainStateMachine: Equatable {
    enum State: Equatable {
        case serving
        case draining(deadline: Double)
        case stopped
    }

    enum Action: Equatable {
        case none
        /// Stop accepting, tell systemd, close tunnels, and poll the loops for responses in flight.
        case startDraining
        /// Stop the main loop: the index is committed and eddy exits.
        case stop
    }

    private(set) var state = State.serving
    /// Seconds responses in flight get to finish.
    let grace: Double

    init(grace: Double = 30) { self.grace = grace }

    /// Not serving new requests any more (`/readyz` answers 503).
    var isDraining: Bool { state != .serving }

    /// SIGTERM or SIGINT came at `now`.
    mutating func signalled(now: Double) -> Action {
        switch state {
        case .serving:
            state = .draining(deadline: now + grace)
            return .startDraining
        case .draining:
            state = .stopped
            return .stop
        case .stopped:
            return .none
        }
    }

    /// A poll at `now`: past the deadline, stop whatever is still in flight.
    mutating func polled(now: Double) -> Action {
        guard case let .draining(deadline) = state, now > deadline else { return .none }
        state = .stopped
        return .stop
    }

    /// The loops answered the poll: `idle` when none has a response or reply in flight. An answer
    /// that comes after the stop changes nothing.
    mutating func counted(idle: Bool) -> Action {
        guard case .draining = state, idle else { return .none }
        state = .stopped
        return .stop
    }
}
