import EddyCore
import EddyTestSupport
import XCTest

final class ByteRangeSetTests: XCTestCase {
    // MARK: init / basics

    func test_init_empty_isEmptyWithZeroCount() {
        let s = ByteRangeSet()
        XCTAssertTrue(s.isEmpty)
        XCTAssertEqual(s.count, 0)
        XCTAssertEqual(s.ranges, [])
        XCTAssertEqual(s.description, "[]")
    }

    func test_init_unsortedOverlappingSequence_isCanonical() {
        let s = ByteRangeSet([20..<30, 0..<5, 3..<10, 10..<12])
        XCTAssertEqual(s.ranges, [0..<12, 20..<30])
        XCTAssertEqual(s.count, 22)
    }

    func test_description_twoRanges_listsHalfOpenRanges() {
        XCTAssertEqual(ByteRangeSet([0..<5, 10..<20]).description, "[0..<5, 10..<20]")
    }

    // MARK: insert

    func test_insert_emptyRange_isIgnored() {
        var s = ByteRangeSet([0..<10])
        s.insert(5..<5)
        s.insert(50..<50)
        XCTAssertEqual(s.ranges, [0..<10])
    }

    func test_insert_disjointRanges_keepsThemSortedAndSeparate() {
        var s = ByteRangeSet()
        s.insert(100..<200)
        s.insert(0..<10)
        s.insert(50..<60)
        XCTAssertEqual(s.ranges, [0..<10, 50..<60, 100..<200])
    }

    func test_insert_adjacentOnRight_merges() {
        var s = ByteRangeSet([0..<10])
        s.insert(10..<20)
        XCTAssertEqual(s.ranges, [0..<20])
    }

    func test_insert_adjacentOnLeft_merges() {
        var s = ByteRangeSet([10..<20])
        s.insert(0..<10)
        XCTAssertEqual(s.ranges, [0..<20])
    }

    func test_insert_fillingGapExactly_mergesBothNeighbours() {
        var s = ByteRangeSet([0..<10, 20..<30])
        s.insert(10..<20)
        XCTAssertEqual(s.ranges, [0..<30])
    }

    func test_insert_overlappingSeveral_mergesIntoOne() {
        var s = ByteRangeSet([0..<5, 10..<15, 20..<25, 40..<50])
        s.insert(3..<22)
        XCTAssertEqual(s.ranges, [0..<25, 40..<50])
    }

    func test_insert_containedRange_changesNothing() {
        var s = ByteRangeSet([0..<100])
        s.insert(10..<20)
        XCTAssertEqual(s.ranges, [0..<100])
    }

    func test_insert_coveringRange_swallowsAll() {
        var s = ByteRangeSet([5..<10, 20..<30, 35..<36])
        s.insert(0..<100)
        XCTAssertEqual(s.ranges, [0..<100])
    }

    func test_insert_oneByteGap_staysSeparate() {
        var s = ByteRangeSet([0..<10])
        s.insert(11..<20)
        XCTAssertEqual(s.ranges, [0..<10, 11..<20])
        XCTAssertEqual(s.count, 19)
    }

    // MARK: remove

    func test_remove_middle_splitsRange() {
        var s = ByteRangeSet([0..<100])
        s.remove(40..<60)
        XCTAssertEqual(s.ranges, [0..<40, 60..<100])
    }

    func test_remove_prefix_trimsLowerBound() {
        var s = ByteRangeSet([0..<100])
        s.remove(0..<30)
        XCTAssertEqual(s.ranges, [30..<100])
    }

    func test_remove_suffix_trimsUpperBound() {
        var s = ByteRangeSet([0..<100])
        s.remove(70..<200)
        XCTAssertEqual(s.ranges, [0..<70])
    }

    func test_remove_whole_leavesEmpty() {
        var s = ByteRangeSet([10..<20])
        s.remove(10..<20)
        XCTAssertTrue(s.isEmpty)
    }

    func test_remove_spanningSeveral_trimsEdgesAndDropsInner() {
        var s = ByteRangeSet([0..<10, 20..<30, 40..<50, 60..<70])
        s.remove(5..<65)
        XCTAssertEqual(s.ranges, [0..<5, 65..<70])
    }

    func test_remove_adjacentToStoredRange_changesNothing() {
        var s = ByteRangeSet([10..<20])
        s.remove(20..<30)
        s.remove(0..<10)
        XCTAssertEqual(s.ranges, [10..<20])
    }

    func test_remove_startingAtUpperBoundOfOneRange_affectsOnlyNext() {
        var s = ByteRangeSet([0..<10, 15..<30])
        s.remove(10..<20)
        XCTAssertEqual(s.ranges, [0..<10, 20..<30])
    }

    func test_remove_hole_changesNothing() {
        var s = ByteRangeSet([0..<10, 20..<30])
        s.remove(12..<18)
        XCTAssertEqual(s.ranges, [0..<10, 20..<30])
    }

    func test_remove_emptyRange_isIgnored() {
        var s = ByteRangeSet([0..<10])
        s.remove(5..<5)
        XCTAssertEqual(s.ranges, [0..<10])
    }

    // MARK: contains

    func test_contains_rangeInsideStoredRange_isTrue() {
        let s = ByteRangeSet([10..<20])
        XCTAssertTrue(s.contains(10..<20))
        XCTAssertTrue(s.contains(12..<15))
    }

    func test_contains_rangeCrossingHole_isFalse() {
        let s = ByteRangeSet([0..<10, 11..<20])
        XCTAssertFalse(s.contains(5..<15))
    }

    func test_contains_rangeOverhangingEdge_isFalse() {
        let s = ByteRangeSet([10..<20])
        XCTAssertFalse(s.contains(9..<15))
        XCTAssertFalse(s.contains(15..<21))
    }

    func test_contains_emptyRange_isAlwaysTrue() {
        XCTAssertTrue(ByteRangeSet().contains(5..<5))
        XCTAssertTrue(ByteRangeSet([0..<1]).contains(100..<100))
    }

    func test_contains_offsetAtBounds_lowerIncludedUpperExcluded() {
        let s = ByteRangeSet([10..<20])
        XCTAssertFalse(s.contains(9))
        XCTAssertTrue(s.contains(10))
        XCTAssertTrue(s.contains(19))
        XCTAssertFalse(s.contains(20))
    }

    func test_contains_onEmptySet_isFalse() {
        XCTAssertFalse(ByteRangeSet().contains(0))
        XCTAssertFalse(ByteRangeSet().contains(0..<1))
    }

    // MARK: contiguousLength

    func test_contiguousLength_fromInsideRange_isDistanceToUpperBound() {
        let s = ByteRangeSet([10..<20, 30..<40])
        XCTAssertEqual(s.contiguousLength(from: 10), 10)
        XCTAssertEqual(s.contiguousLength(from: 15), 5)
        XCTAssertEqual(s.contiguousLength(from: 19), 1)
        XCTAssertEqual(s.contiguousLength(from: 30), 10)
    }

    func test_contiguousLength_fromHole_isZero() {
        let s = ByteRangeSet([10..<20, 30..<40])
        XCTAssertEqual(s.contiguousLength(from: 0), 0)
        XCTAssertEqual(s.contiguousLength(from: 20), 0)
        XCTAssertEqual(s.contiguousLength(from: 25), 0)
        XCTAssertEqual(s.contiguousLength(from: 40), 0)
        XCTAssertEqual(ByteRangeSet().contiguousLength(from: 0), 0)
    }

    // MARK: nextStored

    func test_nextStored_fromInsideRange_isOffsetItself() {
        let s = ByteRangeSet([10..<20])
        XCTAssertEqual(s.nextStored(from: 10), 10)
        XCTAssertEqual(s.nextStored(from: 15), 15)
    }

    func test_nextStored_fromHole_isNextLowerBound() {
        let s = ByteRangeSet([10..<20, 30..<40])
        XCTAssertEqual(s.nextStored(from: 0), 10)
        XCTAssertEqual(s.nextStored(from: 20), 30)
        XCTAssertEqual(s.nextStored(from: 29), 30)
    }

    func test_nextStored_pastLastRange_isNil() {
        let s = ByteRangeSet([10..<20])
        XCTAssertNil(s.nextStored(from: 20))
        XCTAssertNil(s.nextStored(from: 1000))
        XCTAssertNil(ByteRangeSet().nextStored(from: 0))
    }

    // MARK: gaps

    func test_gaps_emptySet_isWholeRange() {
        XCTAssertEqual(ByteRangeSet().gaps(in: 0..<100), [0..<100])
    }

    func test_gaps_fullyCovered_isEmpty() {
        XCTAssertEqual(ByteRangeSet([0..<100]).gaps(in: 10..<90), [])
    }

    func test_gaps_mixed_listsHolesAscending() {
        let s = ByteRangeSet([10..<20, 30..<40])
        XCTAssertEqual(s.gaps(in: 0..<50), [0..<10, 20..<30, 40..<50])
    }

    func test_gaps_rangeStartingAndEndingInsideStored_onlyInnerHole() {
        let s = ByteRangeSet([10..<20, 30..<40])
        XCTAssertEqual(s.gaps(in: 15..<35), [20..<30])
    }

    func test_gaps_rangeStartingAtUpperBound_startsThere() {
        let s = ByteRangeSet([0..<10, 30..<40])
        XCTAssertEqual(s.gaps(in: 10..<35), [10..<30])
    }

    func test_gaps_emptyQueryRange_isEmpty() {
        XCTAssertEqual(ByteRangeSet([0..<10]).gaps(in: 50..<50), [])
    }

    func test_gaps_storedRangesBeyondQuery_areIgnored() {
        let s = ByteRangeSet([100..<200])
        XCTAssertEqual(s.gaps(in: 0..<50), [0..<50])
    }

    // MARK: intersection

    func test_intersection_partialOverlap_clampsRanges() {
        let s = ByteRangeSet([0..<10, 20..<30, 40..<50])
        XCTAssertEqual(s.intersection(5..<45).ranges, [5..<10, 20..<30, 40..<45])
    }

    func test_intersection_disjoint_isEmpty() {
        let s = ByteRangeSet([0..<10])
        XCTAssertTrue(s.intersection(10..<20).isEmpty)
        XCTAssertTrue(s.intersection(3..<3).isEmpty)
    }

    func test_intersection_superset_isSelf() {
        let s = ByteRangeSet([5..<10, 20..<30])
        XCTAssertEqual(s.intersection(0..<100), s)
    }

    // MARK: randomized model check
}
