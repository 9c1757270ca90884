import XCTest
@testable import EddyDownloads

/// A download's progress sums, kept as units are stored, lost, dropped and added (issue 59): each
/// checked against the same sums made by walking every unit, over random sequences of changes.
final class ProgressTallyTests: XCTestCase {
    /// Two renditions of 2 s segments (one with known byte ranges), a key without a rendition.
    private let facts: [UnitFacts] = [
        UnitFacts(rendition: nil, isSegment: false, exactBytes: nil),
        UnitFacts(rendition: 0, isSegment: false, exactBytes: 700),
        UnitFacts(rendition: 0, isSegment: true, start: 0, duration: 2, exactBytes: nil),
        UnitFacts(rendition: 0, isSegment: true, start: 2, duration: 2, exactBytes: nil),
        UnitFacts(rendition: 0, isSegment: true, start: 4, duration: 2, exactBytes: nil),
        UnitFacts(rendition: 1, isSegment: true, start: 0, duration: 2, exactBytes: 1000),
        UnitFacts(rendition: 1, isSegment: true, start: 2, duration: 2, exactBytes: 1000),
        UnitFacts(rendition: 1, isSegment: true, start: 4, duration: 2.5, exactBytes: 1250),
    ]

    func test_storingEveryUnit_completesEachRendition() {
        var m = UnitScheduleStateMachine()
        m.reset(facts: facts, stored: [0: 50])
        XCTAssertEqual(m.tally.pending, 7)
        XCTAssertEqual(m.tally.tally(nil).pending, 0)
        for i in 1..<facts.count { m.stored(i, bytes: facts[i].exactBytes ?? 400) }
        XCTAssertTrue(m.allStored)
        XCTAssertEqual(m.storedCount, 8)
        XCTAssertEqual(m.tally.storedBytes, 50 + 700 + 1200 + 3250)
        let r0 = m.tally.tally(0), r1 = m.tally.tally(1)
        XCTAssertEqual([r0.segmentsDone, r0.segmentsTotal, r1.segmentsDone, r1.segmentsTotal], [3, 3, 3, 3])
        XCTAssertEqual(r1.mediaSecondsDone, 6.5)
        XCTAssertEqual(r0.loaded, [[0, 6]])
        XCTAssertEqual(r0.bytesPerSecond, 200)
    }

    /// Segments stored out of order leave gaps in the loaded ranges until the gap is filled.
    func test_loadedRanges_mergeAsGapsFill() {
        var ranges: [[Double]] = []
        RenditionTally.insert(4, 6, into: &ranges)
        RenditionTally.insert(0, 2, into: &ranges)
        XCTAssertEqual(ranges, [[0, 2], [4, 6]])
        RenditionTally.insert(8, 10, into: &ranges)
        RenditionTally.insert(2.0005, 4, into: &ranges) // EXTINF rounding: still touching
        XCTAssertEqual(ranges, [[0, 6], [8, 10]])
        RenditionTally.insert(6, 8, into: &ranges)
        XCTAssertEqual(ranges, [[0, 10]])
    }

    /// A dropped unit counts nowhere; a lost one is pending again and its range leaves.
    func test_dropAndLost_moveTheSums() {
        var m = UnitScheduleStateMachine()
        m.reset(facts: facts, stored: [:])
        m.stored(2, bytes: 400)
        m.stored(3, bytes: 400)
        m.drop(4)
        XCTAssertEqual(m.tally.tally(0).segmentsTotal, 2)
        XCTAssertEqual(m.tally.tally(0).pending, 1) // the map (unit 1)
        m.lost(2)
        m.refreshLoaded()
        XCTAssertEqual(m.tally.tally(0).loaded, [[2, 4]])
        XCTAssertEqual(m.tally.tally(0).doneBytes, 400)
        XCTAssertEqual(m.tally.storedBytes, 400)
        m.lost(4) // a dropped unit lost is pending again, and counts again
        XCTAssertEqual(m.tally.tally(0).segmentsTotal, 3)
        XCTAssertEqual(m.tally.tally(0).pending, 3)
    }

    /// Random sequences of changes: the kept sums always equal a walk over the units.
    func test_randomChanges_matchAWalk() {
        var rng = SystemRandomNumberGenerator()
        for seed in 0..<200 {
            var m = UnitScheduleStateMachine()
            m.reset(facts: facts, stored: seed % 3 == 0 ? [1: 700] : [:])
            for _ in 0..<40 {
                let i = Int.random(in: 0..<facts.count, using: &rng)
                switch Int.random(in: 0..<5, using: &rng) {
                case 0, 1: m.started(i); m.stored(i, bytes: facts[i].exactBytes ?? Int.random(in: 1...900, using: &rng))
                case 2: _ = m.settle(i, bytes: facts[i].exactBytes ?? 300)
                case 3: m.lost(i)
                default: m.drop(i)
                }
                m.grow(facts: seed % 7 == 0 && i == 0 ? [UnitFacts(rendition: 1, isSegment: true, start: 6.5, duration: 2)] : [])
            }
            m.refreshLoaded()
            assertMatchesWalk(m, seed: seed)
        }
    }

    private func assertMatchesWalk(_ m: UnitScheduleStateMachine, seed: Int) {
        let all = m.tally.facts
        XCTAssertEqual(m.tally.pending, (0..<m.count).filter { !m.done[$0] }.count, "seed \(seed)")
        XCTAssertEqual(m.tally.storedBytes, (0..<m.count).filter { m.done[$0] }.map { m.bytes[$0] }.reduce(0, +), "seed \(seed)")
        for r in [nil, 0, 1] as [Int?] {
            let t = m.tally.tally(r)
            let mine = (0..<m.count).filter { all[$0].rendition == r && !m.dropped.contains($0) }
            let pending = mine.filter { !m.done[$0] }, stored = mine.filter { m.done[$0] }
            XCTAssertEqual(t.pending, pending.count, "seed \(seed) r \(String(describing: r))")
            XCTAssertEqual(t.pendingExactBytes, pending.compactMap { all[$0].exactBytes }.reduce(0, +), "seed \(seed)")
            XCTAssertEqual(t.pendingInexact, pending.filter { all[$0].exactBytes == nil }.count, "seed \(seed)")
            XCTAssertEqual(t.doneBytes, stored.map { m.bytes[$0] }.reduce(0, +), "seed \(seed)")
            let segments = mine.filter { all[$0].isSegment }, storedSegments = segments.filter { m.done[$0] }
            XCTAssertEqual(t.segmentsTotal, segments.count, "seed \(seed)")
            XCTAssertEqual(t.segmentsDone, storedSegments.count, "seed \(seed)")
            XCTAssertEqual(t.mediaSecondsDone, storedSegments.map { all[$0].duration }.reduce(0, +), accuracy: 1e-9, "seed \(seed)")
            var loaded: [[Double]] = []
            for i in storedSegments { RenditionTally.insert(all[i].start, all[i].start + all[i].duration, into: &loaded) }
            XCTAssertEqual(t.loaded, loaded, "seed \(seed)")
        }
    }
}
