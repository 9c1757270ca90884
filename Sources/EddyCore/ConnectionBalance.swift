/// Where a new client connection goes among the loops that share one listening port: to the loop
/// that holds the fewest open connections, the loop that accepted it keeping it on a tie.
///
/// The kernel spreads a SO_REUSEPORT group's connections by a hash of their addresses, not
/// evenly: 8 connections over 2 loops split 4/4 only 27% of the time (5/3 44%, 6/2 22%, 7/1 6%),
/// and the loop holding 6 or 7 of a LAN's few long-lived players serves them on one core while
/// the other core idles. Envoy's `exact_balance` connection balancer answers the same problem
/// the same way.
///
/// Counts change on accept and close only: a connection stays on the loop that took it (moving one
/// that is being served would move its exchange). So closes may leave the loops uneven until new
/// connections even them out. A value: the listeners share one behind a lock (`ConnectionBudget`).
public struct ConnectionBalance: Sendable, Equatable {
    /// Open connections per member, in the order the members joined.
    public private(set) var counts: [Int] = []
    /// Open connections over every member.
    public private(set) var total = 0
    /// Members that take connections from others (not retired).
    public private(set) var accepting: [Bool] = []

    public init() {}

    /// Adds a member with no connections; returns its index.
    public mutating func addMember() -> Int {
        counts.append(0)
        accepting.append(true)
        return counts.count - 1
    }

    /// `member` stopped accepting (a drain): it is given no more connections, and keeps its count.
    public mutating func retire(_ member: Int) {
        accepting[member] = false
    }

    /// A connection accepted by `member`: the member that takes it (the first of the accepting
    /// members holding the fewest, `member` itself when it holds no more than they), counted there
    /// from now on.
    public mutating func place(acceptedBy member: Int) -> Int {
        var target = member
        for (i, n) in counts.enumerated() where n < counts[target] && accepting[i] { target = i }
        counts[target] += 1
        total += 1
        return target
    }

    /// A connection of `member` closed.
    public mutating func closed(on member: Int) {
        guard counts[member] > 0 else { return }
        counts[member] -= 1
        total -= 1
    }

    /// A connection placed on `from` went to `to` instead (`from` could not take it: its loop is
    /// stopping).
    public mutating func moved(from: Int, to: Int) {
        guard from != to, counts[from] > 0 else { return }
        counts[from] -= 1
        counts[to] += 1
    }
}
