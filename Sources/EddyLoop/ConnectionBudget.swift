import EddyCore

/// What the listeners of a group that share one port (one per loop) share: the count of client
/// connections open on all of them, so that `max_connections` bounds them together, and a way to
/// shed an idle connection on another loop when descriptors run out.
///
/// The kernel spreads connections over the listeners by a hash of their addresses, not evenly,
/// so an equal share per loop would refuse some while another loop still had room. Descriptors
/// are the process's, not a loop's: a loop out of them with no idle connection of its own to shed
/// would otherwise wait for a header timeout while the idle connections holding every descriptor
/// sit on another loop (seen with 300 slowloris connections and RLIMIT_NOFILE 256 on 2 loops).
public final class ConnectionBudget: Sendable {
    private struct Members {
        var shedders: [(owner: ObjectIdentifier, shed: () -> Void)] = []
        var next = 0
    }

    private let open = Locked(0)
    private let members = Locked(Members())

    public init() {}

    /// Connections open now, on every listener of the group.
    public var count: Int { open.withLock { $0 } }

    func opened() { open.withLock { $0 += 1 } }

    func closed() { open.withLock { $0 -= 1 } }

    /// Joins `server` to the group (it counts its connections here): `post` runs a job on its
    /// loop (its mailbox). Held weakly. Call before the loop runs.
    public func join(_ server: HTTPServer, post: @escaping (@escaping () -> Void) -> Void) {
        server.budget = self
        let id = ObjectIdentifier(server)
        let shed: () -> Void = { [weak server] in post { _ = server?.shedIdleConnection() } }
        members.withLock { $0.shedders.append((id, shed)) }
    }

    /// Asks another member, in turn, to shed its newest idle connection; false when `server` is
    /// alone in the group.
    func shedElsewhere(than server: HTTPServer) -> Bool {
        let id = ObjectIdentifier(server)
        let shed: (() -> Void)? = members.withLock { m in
            let others = m.shedders.filter { $0.owner != id }
            guard !others.isEmpty else { return nil }
            m.next = (m.next + 1) % others.count
            return others[m.next].shed
        }
        guard let shed else { return false }
        shed()
        return true
    }
}
