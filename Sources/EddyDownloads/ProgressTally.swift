/// A download's progress sums per rendition, kept by `UnitScheduleStateMachine` as its units
/// change state, so that a unit's end costs O(1) and a job's progress, its renditions held whole
/// and its pinned bytes cost O(renditions), never a walk over its units (issue 59: a walk per
/// unit made 36,000 segments cost 6× what 9,000 did).
struct ProgressTally: Equatable {
    /// Each unit's facts, by plan index.
    private(set) var facts: [UnitFacts] = []
    /// Per rendition of the plan; `other` for units without one.
    private(set) var renditions: [RenditionTally] = []
    private(set) var other = RenditionTally()
    /// Units not stored, of every rendition.
    private(set) var pending = 0
    /// Bytes of the units stored (dropped ones have none).
    private(set) var storedBytes = 0

    /// A new plan's units, none stored yet.
    mutating func reset(_ facts: [UnitFacts]) {
        self.facts = []
        renditions = []
        other = RenditionTally()
        (pending, storedBytes) = (0, 0)
        grow(facts)
    }

    /// Units join at the end of the plan, not stored.
    mutating func grow(_ more: [UnitFacts]) {
        for f in more {
            facts.append(f)
            pending += 1
            update(f) { $0.addPending(f) }
        }
    }

    /// Unit `i`, pending, is stored with `bytes`.
    mutating func store(_ i: Int, bytes: Int) {
        let f = facts[i]
        pending -= 1
        storedBytes += bytes
        update(f) { $0.store(f, bytes: bytes) }
    }

    /// Unit `i`, stored with `bytes`, is pending again.
    mutating func lose(_ i: Int, bytes: Int) {
        let f = facts[i]
        pending += 1
        storedBytes -= bytes
        update(f) { $0.lose(f, bytes: bytes) }
    }

    /// Unit `i`, pending, is dropped (settled without bytes); `restore` undoes it.
    mutating func drop(_ i: Int) {
        let f = facts[i]
        pending -= 1
        update(f) { $0.dropPending(f) }
    }

    mutating func restore(_ i: Int) {
        let f = facts[i]
        pending += 1
        update(f) { $0.addPending(f) }
    }

    /// The sums of rendition `r` (`nil`: the units without one).
    func tally(_ r: Int?) -> RenditionTally {
        guard let r else { return other }
        return r < renditions.count ? renditions[r] : RenditionTally()
    }

    /// Makes the loaded ranges of renditions that lost a unit again from `stored` units.
    mutating func refreshLoaded(stored: (Int) -> Bool) {
        guard renditions.contains(where: \.loadedStale) else { return }
        var fresh = renditions.map { $0.loadedStale ? [[Double]]() : $0.loaded }
        for (i, f) in facts.enumerated() where f.isSegment && stored(i) {
            if let r = f.rendition, renditions[r].loadedStale { RenditionTally.insert(f.start, f.start + f.duration, into: &fresh[r]) }
        }
        for r in renditions.indices where renditions[r].loadedStale {
            renditions[r].loaded = fresh[r]
            renditions[r].loadedStale = false
        }
    }

    private mutating func update(_ f: UnitFacts, _ change: (inout RenditionTally) -> Void) {
        guard let r = f.rendition else { return change(&other) }
        if r >= renditions.count { renditions += Array(repeating: RenditionTally(), count: r + 1 - renditions.count) }
        change(&renditions[r])
    }
}
