import EddyCore
@testable import EddyResources
import XCTest

/// The per-resource scheduling policy, with 100-byte blocks: tickets, fills as values, no sockets.
final class ResourceStateMachineTests: XCTestCase {
    private let blocks = BlockLayout(size: 100)

    private func machine(maxAttempts: Int = 4) -> ResourceStateMachine {
        ResourceStateMachine(blocks: blocks, lookahead: 200, behind: 50, maxAttempts: maxAttempts)
    }

    /// A fill streaming `start..<end` with its cursor at `cursor`.
    private func fill(_ id: Int, start: Int, end: Int?, cursor: Int? = nil, startedBy: Int? = nil, awaitingHead: Bool = false) -> ResourceStateMachine.Fill {
        var f = FillStateMachine(start: start, end: end, blocks: blocks)
        if !awaitingHead {
            f.headVerified(bodyStart: start, isFull: false)
            if let cursor, cursor > start { _ = f.written(cursor - start, length: 1000) }
        }
        return .init(id: id, version: 1, startedBy: startedBy, machine: f)
    }

    private func reader(_ m: inout ResourceStateMachine, at pos: Int, end: Int = 1000, priority: FetchPriority = .playback) -> Int {
        let id = m.open(priority: priority, fetchOnly: false)
        m.read(id, from: pos, to: end)
        return id
    }

    private func need(_ m: inout ResourceStateMachine, _ id: Int, confirmed: ByteRangeSet = ByteRangeSet(),
                      length: Int? = 1000, validator: Bool = true, fills: [ResourceStateMachine.Fill] = []) -> ResourceStateMachine.Need {
        m.need(id, length: length, confirmed: confirmed, hasValidator: validator, fills: fills)
    }

    // MARK: - coalescing

    func test_overlappingRequests_shareOneFill_andTheSecondCountsAsCoalescedOnce() {
        var m = machine()
        let a = reader(&m, at: 0), b = reader(&m, at: 50)
        XCTAssertEqual(need(&m, a), .startFill(first: 0, last: 999, shorten: [], isResume: false))
        let f = fill(1, start: 0, end: 1000, cursor: 10, startedBy: a)
        XCTAssertEqual(need(&m, a, fills: [f]), .wait(coalesced: false), "its own fill")
        XCTAssertEqual(need(&m, b, fills: [f]), .wait(coalesced: true), "another's fill brings byte 50")
        XCTAssertEqual(need(&m, b, fills: [f]), .wait(coalesced: false), "counted once")
        XCTAssertEqual(Set(m.takeWaiting()), [a, b])
        XCTAssertFalse(m.hasWaiting)
    }

    func test_aFarSeek_doesNotWaitForAFillTooFarBehind_andStartsItsOwnAtItsBlock() {
        var m = machine()
        let b = reader(&m, at: 650)
        let f = fill(1, start: 0, end: nil, cursor: 120)
        // 650 - 120 is beyond the 200-byte lookahead: a new fill from block 600, and the running
        // fill (heading through block 600 with its cursor before it) stops there.
        XCTAssertEqual(need(&m, b, fills: [f]), .startFill(first: 600, last: 999, shorten: [1], isResume: false))
    }

    func test_aNewFillStopsBeforeStoredBytesAndBeforeTheNextFill() {
        var m = machine()
        let a = reader(&m, at: 120)
        var stored = ByteRangeSet()
        stored.insert(500..<600)
        XCTAssertEqual(need(&m, a, confirmed: stored), .startFill(first: 100, last: 499, shorten: [], isResume: false))
        var n = machine()
        let b = reader(&n, at: 120)
        let later = fill(2, start: 400, end: 800, awaitingHead: true)
        XCTAssertEqual(need(&n, b, fills: [later]), .startFill(first: 100, last: 399, shorten: [], isResume: false))
    }

    // MARK: - retries

    func test_aFailedFill_isRetriedAtTheFirstMissingByteWithDoublingBackoff_thenGivenUp() {
        var m = machine(maxAttempts: 3)
        let a = reader(&m, at: 300)
        XCTAssertEqual(need(&m, a), .startFill(first: 300, last: 999, shorten: [], isResume: false))
        // The fill failed without a byte: back off, then resume at the same byte.
        XCTAssertEqual(need(&m, a), .retry(after: 0.1))
        XCTAssertEqual(need(&m, a), .wait(coalesced: false), "the timer is pending")
        m.retryTimerFired(a)
        XCTAssertEqual(need(&m, a), .startFill(first: 300, last: 999, shorten: [], isResume: true))
        XCTAssertEqual(need(&m, a), .retry(after: 0.2))
        m.retryTimerFired(a)
        XCTAssertEqual(need(&m, a), .startFill(first: 300, last: 999, shorten: [], isResume: true))
        XCTAssertEqual(need(&m, a), .giveUp("upstream failed 3 times at byte 300"))
        XCTAssertFalse(m.waiting.contains(a), "a ticket that gave up no longer waits")
    }

    func test_progressResetsTheRetryCount() {
        var m = machine(maxAttempts: 2)
        let a = reader(&m, at: 0)
        _ = need(&m, a)
        XCTAssertEqual(need(&m, a), .retry(after: 0.1))
        m.retryTimerFired(a)
        _ = need(&m, a)
        m.advance(a, to: 150)
        XCTAssertEqual(need(&m, a), .startFill(first: 100, last: 999, shorten: [], isResume: false), "a new position starts afresh")
    }

    func test_fillsThatBreakOffAFewBytesOn_areResumedFromTheByteReached_butNotForever() {
        var m = machine()
        let a = reader(&m, at: 0)
        XCTAssertEqual(need(&m, a), .startFill(first: 0, last: 999, shorten: [], isResume: false))
        var reached = 0
        for attempt in 1..<16 {
            m.fillFailed(stalledAt: nil)
            reached += 7
            m.advance(a, to: reached)
            XCTAssertEqual(need(&m, a, confirmed: ByteRangeSet([0..<reached])),
                           .startFill(first: reached, last: 999, shorten: [], isResume: true), "attempt \(attempt): from the byte reached, at once")
        }
        m.fillFailed(stalledAt: nil)
        m.advance(a, to: reached + 7)
        XCTAssertEqual(need(&m, a, confirmed: ByteRangeSet([0..<(reached + 7)])),
                       .giveUp("upstream broke off 16 times in a row with under 16384 bytes, at byte 112"))
    }

    func test_aSeekInsideABlock_whoseFillsBreakOffBeforeReachingIt_gainsWhatEachBrings() {
        var m = machine(maxAttempts: 2)
        let a = reader(&m, at: 250)
        XCTAssertEqual(need(&m, a), .startFill(first: 200, last: 999, shorten: [], isResume: false))
        for reached in [215, 230, 245] {
            m.fillFailed(stalledAt: nil)
            XCTAssertEqual(need(&m, a, confirmed: ByteRangeSet([200..<reached])),
                           .startFill(first: reached, last: 999, shorten: [], isResume: true),
                           "the fill that broke off at \(reached) brought bytes: again at once, from there")
        }
    }

    func test_aFillCancelledByEddy_isNoFailureOfTheOrigin() {
        var m = machine()
        let a = reader(&m, at: 0)
        _ = need(&m, a)
        m.fillFailed(stalledAt: nil, byOrigin: false)
        m.advance(a, to: 5)
        XCTAssertEqual(need(&m, a, confirmed: ByteRangeSet([0..<5])), .startFill(first: 5, last: 999, shorten: [], isResume: false))
    }

    func test_anOriginThatStalledWhereTheTicketWaits_isNotRetried() {
        var m = machine()
        let a = reader(&m, at: 200)
        _ = need(&m, a)
        m.fillFailed(stalledAt: 200)
        XCTAssertEqual(need(&m, a), .giveUp("upstream stalled at byte 200 for the stall timeout"))
    }

    func test_withoutAValidator_aPartialBodyIsNotResumed() {
        var m = machine()
        let a = reader(&m, at: 200)
        XCTAssertEqual(need(&m, a, validator: false), .giveUp("resource has no validator; cannot resume a partial body"))
    }

    // MARK: - origins and stores

    func test_anOriginThatIgnoresRange_makesTicketsWaitForTheWholeBodyFill() {
        var m = machine()
        m.originAnswered(wholeBody: true)
        let a = reader(&m, at: 900)
        let whole = fill(1, start: 0, end: nil, cursor: 100)
        XCTAssertEqual(need(&m, a, fills: [whole]), .wait(coalesced: false), "asking for byte 900 again would get 200 again")
        XCTAssertEqual(need(&m, a, fills: []), .startFill(first: 900, last: 999, shorten: [], isResume: false),
                       "once no fill runs, ask again")
    }

    func test_unknownLength_waitsWhileAFillRuns() {
        var m = machine()
        let a = reader(&m, at: 5000, end: Int.max)
        let f = fill(1, start: 0, end: nil, cursor: 100)
        XCTAssertEqual(need(&m, a, length: nil, fills: [f]), .wait(coalesced: false))
        XCTAssertEqual(need(&m, a, length: nil), .startFill(first: 5000, last: nil, shorten: [], isResume: false))
    }

    func test_anUnwritableCache_sendsTheTicketUncached() {
        var m = machine()
        m.storeFailed()
        let a = reader(&m, at: 0)
        XCTAssertEqual(need(&m, a), .streamUncached)
        XCTAssertFalse(m.hasWaiting)
    }

    // MARK: - eviction, throttling, leaving

    func test_evictionBehindAReader_isAllowed_butNotWithinItsWindowOrAhead() {
        var m = machine()
        _ = reader(&m, at: 400, end: 900)
        let f = fill(1, start: 500, end: 900, cursor: 550)
        let kept = m.protectedRanges(fills: [f])
        XCTAssertEqual(kept, [350..<900, 500..<900], "the fill keeps its unconfirmed block from its start")
        var evictable = ByteRangeSet()
        evictable.insert(0..<1000)
        for r in kept { evictable.remove(r) }
        XCTAssertEqual(evictable.ranges, [0..<350, 900..<1000], "bytes behind the reader's window and past its end may go")
    }

    func test_aHoldingTicket_protectsNoBlocks() {
        var m = machine()
        _ = m.open(priority: .playback, fetchOnly: false)
        XCTAssertEqual(m.protectedRanges(fills: []), [])
        XCTAssertEqual(m.highestPriority, .playback)
    }

    func test_pauseAndResume_aFullCachePausesFillsUntilAResponseWaits() {
        var m = machine()
        let a = reader(&m, at: 0)
        XCTAssertTrue(m.shouldThrottle(overBudget: true), "nobody waits: pause")
        XCTAssertFalse(m.shouldThrottle(overBudget: false))
        let f = fill(1, start: 0, end: 1000, cursor: 0)
        _ = need(&m, a, fills: [f])
        XCTAssertFalse(m.shouldThrottle(overBudget: true), "a waiting response always gets its bytes")
        _ = m.takeWaiting()
        XCTAssertTrue(m.shouldThrottle(overBudget: true))
    }

    func test_aWaitingPrefetch_doesNotOverrideAFullCache() {
        var m = machine()
        let p = m.open(priority: .prefetch, fetchOnly: true)
        _ = need(&m, p)
        XCTAssertTrue(m.hasWaiting)
        XCTAssertTrue(m.shouldThrottle(overBudget: true))
    }

    func test_theLastClientLeavingMidBlock_letsTheFillFinishThatBlockOnly() {
        var m = machine()
        let a = reader(&m, at: 0)
        var f = FillStateMachine(start: 0, end: nil, blocks: blocks)
        f.headVerified(bodyStart: 0, isFull: false)
        XCTAssertEqual(f.chunkArrived(130, length: 1000, hasReaders: !m.tickets.isEmpty, isPrefetch: false, throttled: false), .write(count: 130))
        _ = f.written(130, length: 1000)
        m.close(a)
        XCTAssertNil(m.highestPriority)
        XCTAssertEqual(f.chunkArrived(100, length: 1000, hasReaders: !m.tickets.isEmpty, isPrefetch: false, throttled: false),
                       .write(count: 70), "only up to the end of block 1")
        _ = f.written(70, length: 1000)
        XCTAssertEqual(f.chunkArrived(100, length: 1000, hasReaders: false, isPrefetch: false, throttled: false), .finish)
    }

    func test_aVersionChange_isToldToReadingResponsesOnly() {
        var m = machine()
        let holding = m.open(priority: .playback, fetchOnly: false)
        let reading = reader(&m, at: 100)
        _ = m.open(priority: .prefetch, fetchOnly: true)
        XCTAssertEqual(m.readingTickets(), [reading])
        XCTAssertNotEqual(holding, reading)
    }

    // MARK: - fetch-only tickets

    func test_aFetchOnlyTicket_movesPastConfirmedBytes_andIsDoneWhenItsRangeIsStored() {
        var m = machine()
        let p = m.open(priority: .download, fetchOnly: true)
        m.read(p, from: 100, to: 400)
        var stored = ByteRangeSet()
        stored.insert(100..<250)
        var step = m.advanceFetchOnly(confirmed: stored, length: 1000)
        XCTAssertEqual(step.done, [])
        XCTAssertEqual(step.needing, [p])
        XCTAssertEqual(step.moved, [p], "its consumer hears of the progress")
        XCTAssertEqual(m.position(of: p), 250)
        XCTAssertEqual(m.advanceFetchOnly(confirmed: stored, length: 1000).moved, [], "nothing new: nothing to say")
        stored.insert(250..<400)
        step = m.advanceFetchOnly(confirmed: stored, length: 1000)
        XCTAssertEqual(step.done, [p])
        XCTAssertNil(m.tickets[p])
        XCTAssertFalse(m.hasFetchOnly)
    }

    func test_aFetchOnlyTicket_endsAtTheResourcesEnd() {
        var m = machine()
        let p = m.open(priority: .prefetch, fetchOnly: true)
        m.read(p, from: 0, to: Int.max)
        var stored = ByteRangeSet()
        stored.insert(0..<300)
        XCTAssertEqual(m.advanceFetchOnly(confirmed: stored, length: 300).done, [p])
    }

    func test_closingAWaitingTicket_forgetsIt() {
        var m = machine()
        let a = reader(&m, at: 0)
        _ = need(&m, a)
        m.close(a)
        XCTAssertEqual(m.takeWaiting(), [])
        XCTAssertEqual(need(&m, a), .giveUp("ticket closed"))
    }
}
