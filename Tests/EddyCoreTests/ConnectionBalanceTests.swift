import EddyCore
import EddyTestSupport
import XCTest

final class ConnectionBalanceTests: XCTestCase {
    private func members(_ n: Int) -> ConnectionBalance {
        var b = ConnectionBalance()
        for i in 0..<n { XCTAssertEqual(b.addMember(), i) }
        return b
    }

    func testTheAcceptingLoopKeepsAConnectionWhileItHoldsNoMoreThanTheOthers() {
        var b = members(2)
        XCTAssertEqual(b.place(acceptedBy: 1), 1)
        XCTAssertEqual(b.place(acceptedBy: 0), 0)
        XCTAssertEqual(b.counts, [1, 1])
        XCTAssertEqual(b.place(acceptedBy: 0), 0, "a tie stays where it was accepted")
        XCTAssertEqual(b.counts, [2, 1])
    }

    func testAConnectionAcceptedByABusierLoopGoesToTheLeastBusyFirstAmongEquals() {
        var b = members(4)
        for _ in 0..<3 { _ = b.place(acceptedBy: 2) }
        XCTAssertEqual(b.counts, [1, 1, 1, 0])
        XCTAssertEqual(b.place(acceptedBy: 0), 3)
        XCTAssertEqual(b.place(acceptedBy: 0), 0)
        XCTAssertEqual(b.place(acceptedBy: 0), 1, "the first of those holding fewest")
        XCTAssertEqual(b.counts, [2, 2, 1, 1])
    }

    /// Whatever loops the kernel hands connections to, every loop holds within one of every other
    /// while none closes.
    func testAnyOrderOfAcceptsEndsWithinOneOfEven() {
        for seed in 0..<200 {
            var g = SplitMix(state: UInt64(seed))
            let loops = Int.random(in: 1...8, using: &g)
            var b = members(loops)
            let n = Int.random(in: 0...100, using: &g)
            for _ in 0..<n {
                // Skewed, as a hash of few addresses is: most land on loop 0.
                let accepted = Int.random(in: 0..<4, using: &g) == 0 ? Int.random(in: 0..<loops, using: &g) : 0
                _ = b.place(acceptedBy: accepted)
            }
            XCTAssertEqual(b.total, n)
            XCTAssertEqual(b.counts.reduce(0, +), n)
            XCTAssertLessThanOrEqual(b.counts.max()! - b.counts.min()!, 1, "seed \(seed): \(b.counts)")
        }
    }

    func testClosesAndMovesKeepTheTotal() {
        var b = members(3)
        for _ in 0..<6 { _ = b.place(acceptedBy: 0) }
        XCTAssertEqual(b.counts, [2, 2, 2])
        b.closed(on: 1)
        b.closed(on: 1)
        b.closed(on: 1) // one close too many is not counted below zero
        XCTAssertEqual(b.counts, [2, 0, 2])
        XCTAssertEqual(b.total, 4)
        XCTAssertEqual(b.place(acceptedBy: 2), 1)
        b.moved(from: 1, to: 2)
        XCTAssertEqual(b.counts, [2, 0, 3])
        XCTAssertEqual(b.total, 5)
        b.moved(from: 1, to: 0) // nothing to move
        XCTAssertEqual(b.counts, [2, 0, 3])
    }

    func testARetiredMemberIsGivenNoMoreConnectionsAndKeepsItsCount() {
        var b = members(3)
        _ = b.place(acceptedBy: 1)
        b.retire(0)
        XCTAssertEqual(b.place(acceptedBy: 1), 2)
        XCTAssertEqual(b.place(acceptedBy: 1), 1, "0 holds fewest but takes none")
        XCTAssertEqual(b.place(acceptedBy: 2), 2)
        XCTAssertEqual(b.counts, [0, 2, 2])
        XCTAssertEqual(b.accepting, [false, true, true])
    }
}
