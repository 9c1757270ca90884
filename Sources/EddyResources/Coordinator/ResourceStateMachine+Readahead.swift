extension ResourceStateMachine {
    /// The byte a fill for responses may run to (issue 58): `readahead` past the block holding
    /// the furthest position of a ticket reading for a response. Nil, for no bound, when nothing
    /// reads for a response (the rule for fills nobody reads then applies, `FillStateMachine`)
    /// or when a download or prefetch ticket is open: their fills fetch what they were asked,
    /// whatever any response has reached.
    /// The end (exclusive) of a response's fill from `position`: `readahead` past the end of the
    /// block holding it, never past `end`; `end` when `readahead` is nil.
    func readaheadEnd(from position: Int, to end: Int, _ readahead: Int?) -> Int {
        guard let readahead, position < Int.max / 2 else { return end } // no block end past Int.max
        let (bound, overflow) = blocks.ceiling(position + 1).addingReportingOverflow(readahead)
        return overflow ? end : Swift.min(end, bound)
    }

    /// The end a ticket reads to (exclusive; `Int.max` for the resource's end).
    func end(of id: Int) -> Int { tickets[id]?.end ?? Int.max }

    func readaheadLimit(_ readahead: Int) -> Int? {
        var furthest: Int?
        for t in tickets.values {
            if t.fetchOnly { return nil }
            if t.reading { furthest = Swift.max(furthest ?? 0, t.position) }
        }
        guard let furthest, furthest < Int.max / 2 else { return nil }
        let (limit, overflow) = blocks.ceiling(furthest + 1).addingReportingOverflow(readahead)
        return overflow ? nil : limit
    }
}
