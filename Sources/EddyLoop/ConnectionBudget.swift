import EddyCore
import Glibc

/// What the listeners of a group that share one port (one per loop) share: the count of client
/// connections open on each of them, so that `max_connections` bounds them together and a new
/// connection goes to the loop with the fewest (`ConnectionBalance`), and a way to shed an idle
/// connection on another loop when descriptors run out.
///
/// The kernel spreads connections over the listeners by a hash of their addresses, not evenly,
/// so an equal share per loop would refuse some while another loop still had room, and a few
/// long-lived clients could all land on one loop. Descriptors are the process's, not a loop's:
/// a loop out of them with no idle connection of its own to shed would otherwise wait for a
/// header timeout while the idle connections holding every descriptor sit on another loop (seen
/// with 300 slowloris connections and RLIMIT_NOFILE 256 on 2 loops).
public final class ConnectionBudget: Sendable {
    private struct Member {
        let owner: ObjectIdentifier
        let shed: () -> Void
        /// Hands an accepted descriptor and its peer's address to the member's loop; false when
        /// that loop takes no more jobs (it is stopping).
        let adopt: (Int32, String) -> Bool
    }

    private struct Group {
        var members: [Member] = []
        var balance = ConnectionBalance()
        var nextShed = 0
    }

    private let group = Locked(Group())

    public init() {}

    /// Connections open now, on every listener of the group.
    public var count: Int { group.withLock { $0.balance.total } }

    /// Joins `server` to the group (it counts its connections here): `post` runs a job on its
    /// loop (its mailbox) and returns false once that loop takes no more. Held weakly.
    public func join(_ server: HTTPServer, post: @escaping (@escaping () -> Void) -> Bool) {
        server.budget = self
        let id = ObjectIdentifier(server)
        let shed: () -> Void = { [weak server] in _ = post { _ = server?.shedIdleConnection() } }
        group.withLock { g in
            let slot = g.balance.addMember()
            server.budgetSlot = slot
            let adopt: (Int32, String) -> Bool = { [weak server, weak self] fd, peer in
                post {
                    if let server {
                        server.adopt(fd, peer: peer)
                    } else { // its loop is gone: nothing reads the descriptor
                        Glibc.close(fd)
                        self?.closed(slot)
                    }
                }
            }
            g.members.append(Member(owner: id, shed: shed, adopt: adopt))
        }
    }

    /// A connection `server` accepted: true when it went to another loop of the group, which
    /// holds fewer connections; false when `server` keeps it (counted as its own either way).
    func handOff(_ fd: Int32, peer: String, acceptedBy server: HTTPServer) -> Bool {
        let slot = server.budgetSlot
        let (target, adopt) = group.withLock { g -> (Int, ((Int32, String) -> Bool)?) in
            let t = g.balance.place(acceptedBy: slot)
            return (t, t == slot ? nil : g.members[t].adopt)
        }
        guard let adopt else { return false }
        if adopt(fd, peer) { return true }
        group.withLock { $0.balance.moved(from: target, to: slot) }
        return false
    }

    /// The listener in `slot` stopped accepting (a drain): no connection is handed to it from now
    /// on, since its loop stops once its own connections are done.
    func retire(_ slot: Int) { group.withLock { $0.balance.retire(slot) } }

    /// A connection of the listener in `slot` closed.
    func closed(_ slot: Int) { group.withLock { $0.balance.closed(on: slot) } }

    /// Asks another member, in turn, to shed its newest idle connection; false when `server` is
    /// alone in the group.
    func shedElsewhere(than server: HTTPServer) -> Bool {
        let id = ObjectIdentifier(server)
        let shed: (() -> Void)? = group.withLock { g in
            let others = g.members.filter { $0.owner != id }
            guard !others.isEmpty else { return nil }
            g.nextShed = (g.nextShed + 1) % others.count
            return others[g.nextShed].shed
        }
        guard let shed else { return false }
        shed()
        return true
    }
}
