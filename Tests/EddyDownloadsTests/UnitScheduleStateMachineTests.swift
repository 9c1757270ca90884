import XCTest
@testable import EddyDownloads

/// A download's unit scheduling as a value: the window, each unit's own backoff, holds, stalls,
/// lost copies and growth, with no fetch or timer.
final class UnitScheduleStateMachineTests: XCTestCase {
    private func schedule(_ count: Int, stored: [Int: Int] = [:]) -> UnitScheduleStateMachine {
        var m = UnitScheduleStateMachine()
        m.reset(facts: Array(repeating: UnitFacts(), count: count), stored: stored)
        return m
    }

    /// Starts what `next` offers until it stops offering; returns the units started and the stop.
    private func fill(_ m: inout UnitScheduleStateMachine, now: Double = 0, window: Int) -> ([Int], UnitScheduleStateMachine.Next) {
        var started: [Int] = []
        while true {
            let n = m.next(now: now, window: window)
            guard case let .fetch(i) = n else { return (started, n) }
            m.started(i)
            started.append(i)
        }
    }

    func test_fillsTheWindowInOrder_skippingStoredUnits() {
        var m = schedule(6, stored: [1: 10])
        let (started, stop) = fill(&m, window: 3)
        XCTAssertEqual(started, [0, 2, 3])
        XCTAssertEqual(stop, .busy)
        m.stored(2, bytes: 5)
        XCTAssertEqual(fill(&m, window: 3).0, [4])
        XCTAssertEqual(m.storedCount, 2)
        XCTAssertEqual(m.bytes[2], 5)
    }

    /// A failed unit waits its own backoff while the others go on; with nothing in flight the
    /// job is told when the first waiting unit is due, and it is offered again then.
    func test_failedUnit_waitsItsOwnBackoff() {
        var m = schedule(3)
        _ = fill(&m, window: 1)
        XCTAssertEqual(m.failed(0) { XCTAssertEqual($0, 1); return 10 }, 1)
        XCTAssertEqual(fill(&m, now: 1, window: 1).0, [1])
        m.stored(1, bytes: 1)
        XCTAssertEqual(fill(&m, now: 2, window: 1).0, [2])
        m.stored(2, bytes: 1)
        XCTAssertEqual(m.next(now: 3, window: 1), .wait(until: 10))
        XCTAssertEqual(m.next(now: 10, window: 1), .fetch(0))
        m.started(0)
        XCTAssertEqual(m.failed(0) { _ in 30 }, 2)
        XCTAssertEqual(m.next(now: 11, window: 4), .wait(until: 30))
        m.started(0)
        m.stored(0, bytes: 7)
        XCTAssertEqual(m.failures[0], 0)
        XCTAssertEqual(m.next(now: 40, window: 4), .allStored)
    }

    /// Retry-After holds every fetch in flight until the origin's time; a stall restarts them at
    /// once; resuming forgets every backoff.
    func test_holdStallAndResume() {
        var m = schedule(4)
        XCTAssertEqual(fill(&m, window: 2).0, [0, 1])
        XCTAssertEqual(m.stopFetches(until: 50), [0, 1])
        XCTAssertTrue(m.inFlight.isEmpty)
        XCTAssertEqual(fill(&m, now: 1, window: 2).0, [2, 3])
        XCTAssertEqual(m.stopFetches(), [2, 3])
        XCTAssertEqual(fill(&m, now: 1, window: 4).0, [2, 3])
        _ = m.stopFetches()
        m.resume()
        XCTAssertEqual(fill(&m, now: 1, window: 4).0, [0, 1, 2, 3])
    }

    /// A lost copy is fetched again even behind the cursor; a dropped live segment counts as
    /// settled without bytes.
    func test_lostAndDroppedUnits() {
        var m = schedule(3, stored: [0: 4, 1: 4, 2: 4])
        XCTAssertEqual(m.next(now: 0, window: 2), .allStored)
        m.lost(0)
        XCTAssertEqual(m.bytes[0], 0)
        XCTAssertEqual(fill(&m, window: 2).0, [0])
        m.drop(0)
        XCTAssertTrue(m.dropped.contains(0))
        XCTAssertTrue(m.allStored)
    }

    /// A grown plan's new units are pending; the cache's copies settle them unless a fetch of
    /// theirs is in flight (it settles them itself).
    func test_growAndSettle() {
        var m = schedule(1, stored: [0: 1])
        m.grow(facts: [UnitFacts(), UnitFacts()])
        XCTAssertEqual(m.count, 3)
        XCTAssertEqual(fill(&m, window: 1).0, [1])
        XCTAssertFalse(m.settle(1, bytes: 9))
        XCTAssertTrue(m.settle(2, bytes: 9))
        XCTAssertFalse(m.settle(2, bytes: 9))
        XCTAssertEqual(m.next(now: 0, window: 1), .busy)
        m.stored(1, bytes: 2)
        XCTAssertEqual(m.next(now: 0, window: 1), .allStored)
    }
}
