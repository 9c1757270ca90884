import EddyCore

/// The scheduling policy of one resource, as a value with no I/O (swift-nio's state-machine
/// style): which tickets wait, which running fill brings the bytes a ticket needs (single-flight),
/// when a new fill starts and over what span, when to retry or give up, what eviction must spare,
/// and when a full cache pauses fills. `ResourceCoordinator` feeds it events and performs the
/// actions; fills are passed in as `Fill` values, their own bookkeeping being `FillStateMachine`.
package struct ResourceStateMachine {
    /// One ticket: a consumer's claim on a byte range at a priority.
    struct TicketState: Equatable {
        let priority: FetchPriority
        /// Prefetch and download tickets only want the bytes in the cache: the coordinator moves
        /// them along as blocks are confirmed. Responses move themselves as they send.
        let fetchOnly: Bool
        /// The next byte the consumer needs.
        var position = 0
        /// End (exclusive) of what the consumer needs; `Int.max` for "to the end".
        var end = Int.max
        /// False while the ticket only holds the resource (a response not yet planned).
        var reading = false
        /// Set once the ticket has waited on a fill another ticket started (counted once).
        var coalesced = false
        var resume: ResumeStateMachine
        /// The resource's `brokenFills` when the ticket last needed bytes.
        var brokenFillsSeen = 0
    }

    /// A fill as the policy sees it.
    struct Fill {
        let id: Int
        let version: Int
        /// The ticket whose need started it, if any.
        let startedBy: Int?
        let machine: FillStateMachine
    }

    /// What to do for a ticket that needs bytes at its position.
    enum Need: Equatable {
        /// Wait: a fill will bring the bytes (`coalesced` the first time that fill is another
        /// ticket's), or a retry is already scheduled.
        case wait(coalesced: Bool)
        /// Start a fill over `first...last` (nil: to the end), after cutting the fills in `shorten`
        /// short at `first` (they were heading through the same bytes). `isResume` when it retries
        /// a fill that failed at this position.
        case startFill(first: Int, last: Int?, shorten: [Int], isResume: Bool)
        /// Arm the ticket's retry timer; report `retryTimerFired` when it fires, then ask again.
        case retry(after: Double)
        /// No more bytes will come for this ticket.
        case giveUp(String)
        /// The cache can not be written: the consumer continues uncached, if it can.
        case streamUncached
    }

    private(set) var tickets: [Int: TicketState] = [:]
    /// Tickets waiting for bytes at their position; woken (and removed) by `takeWaiting`.
    private(set) var waiting = Set<Int>()
    private var fetchOnlyCount = 0
    private var nextID = 1
    /// The origin answered a Range request with 200: asking again is pointless, so tickets wait
    /// for the whole-body fill instead.
    private(set) var originIgnoresRange = false
    /// Writing this resource's bytes failed.
    package private(set) var storeBroken = false
    /// The offset at which the last fill timed out (the origin stalled), if any.
    private(set) var stalledAt: Int?
    /// Fills of this resource that failed so far: a ticket that needs bytes after one did is
    /// resuming (see `ResumeStateMachine`).
    private(set) var brokenFills = 0

    /// A fill's head arrived: the origin answers again. `wholeBody`: asked for a range, it sent
    /// the whole body from byte 0.
    mutating func originAnswered(wholeBody: Bool) {
        stalledAt = nil
        if wholeBody { originIgnoresRange = true }
    }

    /// A fill failed; `stalledAt` when it timed out there (the origin went silent); `byOrigin`
    /// false when eddy stopped it (cancelled, superseded), which counts against no one.
    mutating func fillFailed(stalledAt offset: Int?, byOrigin: Bool = true) {
        if byOrigin { brokenFills += 1 }
        if let offset { stalledAt = offset }
    }

    /// Writing this resource's bytes failed (disk full, unwritable directory).
    mutating func storeFailed() { storeBroken = true }
    let blocks: BlockLayout
    /// How far ahead of a running fill's cursor a ticket waits for it rather than starting its own.
    let lookahead: Int
    /// How far behind a reading ticket's position its bytes stay protected from eviction (what a
    /// response may still have queued for sendfile).
    let behind: Int
    /// Failed fills at one position before a ticket gives up.
    let maxAttempts: Int

    init(blocks: BlockLayout = .standard, lookahead: Int, behind: Int, maxAttempts: Int) {
        self.blocks = blocks
        self.lookahead = lookahead
        self.behind = behind
        self.maxAttempts = maxAttempts
    }

    // MARK: - tickets

    /// Opens a ticket; it holds the resource (no eviction of it as a whole) until closed.
    mutating func open(priority: FetchPriority, fetchOnly: Bool) -> Int {
        let id = nextID
        nextID += 1
        tickets[id] = TicketState(priority: priority, fetchOnly: fetchOnly, resume: ResumeStateMachine(maxAttempts: maxAttempts),
                                  brokenFillsSeen: brokenFills)
        if fetchOnly {
            fetchOnlyCount += 1
            tickets[id]!.reading = true
        }
        return id
    }

    /// The ticket now reads `position..<end`.
    mutating func read(_ id: Int, from position: Int, to end: Int) {
        guard tickets[id] != nil else { return }
        tickets[id]!.reading = true
        tickets[id]!.position = position
        tickets[id]!.end = end
    }

    /// The consumer moved to `position` (and, for a response with several ranges, `end`).
    mutating func advance(_ id: Int, to position: Int, end: Int? = nil) {
        guard tickets[id] != nil else { return }
        tickets[id]!.position = position
        if let end { tickets[id]!.end = end }
    }

    mutating func close(_ id: Int) {
        guard let t = tickets.removeValue(forKey: id) else { return }
        if t.fetchOnly { fetchOnlyCount -= 1 }
        waiting.remove(id)
    }

    var hasWaiting: Bool { !waiting.isEmpty }
    var hasFetchOnly: Bool { fetchOnlyCount > 0 }
    func isFetchOnly(_ id: Int) -> Bool { tickets[id]?.fetchOnly ?? false }
    func position(of id: Int) -> Int { tickets[id]?.position ?? 0 }

    /// The waiting tickets, which stop waiting: each either finds its bytes or asks again.
    mutating func takeWaiting() -> [Int] {
        let out = Array(waiting)
        waiting.removeAll(keepingCapacity: true)
        return out
    }

    /// The retry timer of a ticket fired: its next `need` at the same position starts the fill.
    mutating func retryTimerFired(_ id: Int) { tickets[id]?.resume.timerFired() }

    /// Reading tickets to tell that the representation changed.
    func readingTickets() -> [Int] { tickets.compactMap { $0.value.reading && !$0.value.fetchOnly ? $0.key : nil } }

    // MARK: - policy

    /// Ticket `id` needs the bytes at its position and finds none readable. `length` is the
    /// resource's (nil until known), `confirmed` its confirmed bytes, `hasValidator` whether a
    /// partial body may be completed (RFC 9111 section 3.4), `fills` the running ones.
    mutating func need(_ id: Int, length: Int?, confirmed: ByteRangeSet, hasValidator: Bool, fills: [Fill], readahead: Int? = nil) -> Need {
        guard var t = tickets[id] else { return .giveUp("ticket closed") }
        defer { tickets[id] = t }
        waiting.insert(id)
        let pos = t.position
        let afterFailure = brokenFills > t.brokenFillsSeen
        t.brokenFillsSeen = brokenFills
        if let f = fills.first(where: { $0.machine.willCover(pos, lookahead: lookahead) }) {
            let first = f.startedBy != id && !t.coalesced
            if first { t.coalesced = true }
            return .wait(coalesced: first)
        }
        let anyActive = fills.contains { $0.machine.state.isActive }
        if originIgnoresRange && anyActive { return .wait(coalesced: false) }
        // Unknown length: the body before us was cut off; a new fill starts only once none runs.
        if length == nil && anyActive { return .wait(coalesced: false) }
        if storeBroken {
            waiting.remove(id)
            return .streamUncached
        }
        // The retry rule follows where the next fill would start, not the ticket's position: a
        // ticket that seeks inside a block its fills keep breaking off in before reaching it still
        // gains the bytes they bring (the span starts past them), and each such fill is progress.
        // A response's fill asks at most `readahead` past the block its reader is in (issue 58):
        // the origin sends what may be watched, and the next fill starts as the reader nears the
        // end (`ResourceCoordinator.extendAhead`). Downloads and prefetch ask what they need.
        let end = t.fetchOnly ? t.end : readaheadEnd(from: pos, to: t.end, readahead)
        let (first, last, shorten) = span(at: pos, end: end, length: length, confirmed: confirmed, fills: fills)
        let isResume: Bool
        switch t.resume.needFill(at: first, stalledAt: stalledAt, afterFailure: afterFailure) {
        case .keepWaiting: return .wait(coalesced: false)
        case let .retry(delay): return .retry(after: delay)
        case let .giveUp(reason):
            waiting.remove(id)
            return .giveUp(reason)
        case let .startFill(resume): isResume = resume
        }
        guard hasValidator else {
            // Without a validator, bytes from two responses can not be proven to belong together.
            waiting.remove(id)
            return .giveUp("resource has no validator; cannot resume a partial body")
        }
        return .startFill(first: first, last: last, shorten: shorten, isResume: isResume)
    }

    /// A new fill's span: from the block holding `offset` (past what that block already holds
    /// before `offset`: a span an earlier response stopped inside it) up to the next stored byte,
    /// the next fill's start, `end` or the resource's end, whichever comes first; and the running
    /// fills heading through that block, which stop at its start instead of fetching the same bytes.
    func span(at offset: Int, end: Int, length: Int?, confirmed: ByteRangeSet, fills: [Fill]) -> (first: Int, last: Int?, shorten: [Int]) {
        var first = blocks.floor(offset)
        if first < offset, confirmed.contains(first) { first = Swift.min(offset, first + confirmed.contiguousLength(from: first)) }
        var last: Int? = end == Int.max ? nil : blocks.lastByte(ofBlockHolding: end - 1)
        if let next = confirmed.nextStored(from: offset) { last = Swift.min(last ?? Int.max, next - 1) }
        let active = fills.filter { $0.machine.state.isActive }
        for f in active where f.machine.start > offset { last = Swift.min(last ?? Int.max, f.machine.start - 1) }
        if let length { last = Swift.min(last ?? (length - 1), length - 1) }
        let shorten = active.filter { f in
            f.machine.start < first && (f.machine.end ?? Int.max) > first && f.machine.cursor <= first
        }.map(\.id)
        return (first, last, shorten)
    }

    /// What block eviction must spare: each reading ticket's bytes from `behind` before its
    /// position to its end, and each running fill's unconfirmed span and the rest of its way.
    func protectedRanges(fills: [Fill]) -> [Range<Int>] {
        var out: [Range<Int>] = []
        for t in tickets.values where t.reading {
            out.append(Swift.max(0, t.position - behind)..<Swift.max(t.end, t.position + 1))
        }
        for f in fills where f.machine.state.isActive {
            out.append(f.machine.unconfirmedWindow.lowerBound..<(f.machine.end ?? Int.max))
        }
        return out
    }

    /// True when fills should pause: the cache is over its budget and no ticket above prefetch
    /// waits (a waiting response or download always gets its bytes, so nothing can deadlock).
    func shouldThrottle(overBudget: Bool) -> Bool {
        guard overBudget else { return false }
        return !waiting.contains { tickets[$0].map { $0.priority > .prefetch } ?? false }
    }

    /// The highest priority of an open ticket, nil when none is open.
    var highestPriority: FetchPriority? { tickets.values.map(\.priority).max() }

    /// Fetch-only tickets moved past the confirmed bytes at their position: those now complete
    /// (closed here, to be told `.done`), and those still needing bytes (to be asked `need`).
    mutating func advanceFetchOnly(confirmed: ByteRangeSet, length: Int?) -> (done: [Int], needing: [Int], moved: [Int]) {
        var done: [Int] = [], needing: [Int] = [], moved: [Int] = []
        for (id, t) in tickets where t.fetchOnly {
            let pos = t.position + confirmed.contiguousLength(from: t.position)
            if pos > t.position { advance(id, to: pos) }
            if let length, pos >= Swift.min(t.end, length) {
                done.append(id)
                close(id)
            } else {
                needing.append(id)
                if pos > t.position { moved.append(id) }
            }
        }
        return (done, needing, moved)
    }
}
