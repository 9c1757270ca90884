extension ResourceCoordinator {
    /// Where fills for this resource's responses pause (see `ResourceStateMachine.readaheadLimit`),
    /// or nil when nothing bounds them (`readahead: off`, a download or prefetch reading, or no
    /// response reading).
    var readaheadLimit: Int? { coordinators.readahead.flatMap { machine.readaheadLimit($0) } }

    /// The end (exclusive) a response reading from `position` may have fetched, at most `end`
    /// (see `ResourceStateMachine.readaheadEnd`).
    package func readaheadEnd(from position: Int, to end: Int) -> Int {
        machine.readaheadEnd(from: position, to: end, coordinators.readahead)
    }
}

extension ResourceCoordinator {
    /// A response's reader moved (issue 58): when fewer than half of `readahead` bytes are
    /// readable ahead of it and no fill is on its way there, the next bounded fill starts now,
    /// so its bytes are arriving when the reader gets to the hole rather than a round trip later.
    func extendAhead(_ id: Int) {
        guard let readahead = coordinators.readahead, readahead > 0, let t = tickets[id], t.priority == .playback,
              !machine.isFetchOnly(id), !machine.storeBroken, resource.meta.ifRangeValidator != nil,
              let length = resource.meta.length, !machine.originIgnoresRange else { return } // see `need` for those
        let position = machine.position(of: id)
        let ahead = available(at: position)
        guard ahead < readahead / 2 else { return }
        let hole = position + ahead
        let end = Swift.min(machine.end(of: id), length)
        guard hole < end, !fills.contains(where: { $0.state.isActive && $0.willCover(hole, lookahead: Coordinators.lookahead) })
        else { return }
        fetch(at: hole, end: machine.readaheadEnd(from: position, to: end, readahead), for: t)
    }
}
