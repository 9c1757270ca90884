import EddyCore
import EddyTestSupport
import XCTest

/// ByteRangeSet against a plain set of offsets over random inserts and removes.
final class ByteRangeSetModelTests: XCTestCase {
    private func assertCanonical(_ s: ByteRangeSet, file: StaticString = #filePath, line: UInt = #line) {
        for r in s.ranges { XCTAssertFalse(r.isEmpty, "empty range in \(s)", file: file, line: line) }
        for (a, b) in zip(s.ranges, s.ranges.dropFirst()) {
            XCTAssertLessThan(a.upperBound, b.lowerBound, "ranges touch or overlap in \(s)", file: file, line: line)
        }
    }

    func test_insertRemove_randomOperations_matchSetModel() {
        var rng = SplitMix(state: 0xEDD1_2024)
        let universe = 200
        for _ in 0..<40 {
            var s = ByteRangeSet()
            var model = Set<Int>()
            for _ in 0..<60 {
                let a = Int.random(in: 0...universe, using: &rng)
                let b = Int.random(in: 0...universe, using: &rng)
                let r = min(a, b)..<max(a, b)
                if Bool.random(using: &rng) {
                    s.insert(r)
                    model.formUnion(r)
                } else {
                    s.remove(r)
                    model.subtract(r)
                }
                assertCanonical(s)
                XCTAssertEqual(s.count, model.count)

                // Every query against the model.
                let qa = Int.random(in: 0...universe, using: &rng)
                let qb = Int.random(in: 0...universe, using: &rng)
                let q = min(qa, qb)..<max(qa, qb)
                XCTAssertEqual(s.contains(q), q.allSatisfy(model.contains), "contains(\(q)) in \(s)")
                let o = Int.random(in: 0...universe, using: &rng)
                XCTAssertEqual(s.contains(o), model.contains(o))
                var run = 0
                while model.contains(o + run) { run += 1 }
                XCTAssertEqual(s.contiguousLength(from: o), run, "contiguousLength(from: \(o)) in \(s)")
                XCTAssertEqual(s.nextStored(from: o), model.filter { $0 >= o }.min(), "nextStored(from: \(o)) in \(s)")
                let holes = s.gaps(in: q)
                XCTAssertEqual(Set(holes.flatMap { Array($0) }), Set(q.filter { !model.contains($0) }), "gaps(in: \(q)) in \(s)")
                for (h1, h2) in zip(holes, holes.dropFirst()) { XCTAssertLessThan(h1.upperBound, h2.lowerBound) }
                XCTAssertTrue(holes.allSatisfy { !$0.isEmpty })
                let inter = s.intersection(q)
                assertCanonical(inter)
                XCTAssertEqual(Set(inter.ranges.flatMap { Array($0) }), model.intersection(q), "intersection(\(q)) in \(s)")
            }
            XCTAssertEqual(Set(s.ranges.flatMap { Array($0) }), model)
        }
    }
}
