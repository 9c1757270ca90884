/// The client connections open on a group of listeners that share one port (one per loop), so
/// that `max_connections` bounds them together. The kernel spreads connections over the
/// listeners by a hash of their addresses, not evenly, so an equal share per loop would refuse
/// some while another loop still had room.
public final class ConnectionBudget: Sendable {
    private let open = Locked(0)

    public init() {}

    /// Connections open now, on every listener of the group.
    public var count: Int { open.withLock { $0 } }

    func opened() { open.withLock { $0 += 1 } }

    func closed() { open.withLock { $0 -= 1 } }
}
