import EddyCore
import XCTest

/// RFC 9110 sections 14.2, 15.3.7 and 15.5.17: what to answer once the length is known.
final class RangePlanTests: XCTestCase {
    private func plan(_ value: String?, length: Int) -> RangePlan {
        RangePlan.make(RangeHeader.parse(value), length: length)
    }

    func test_make_noHeader_isFull() {
        XCTAssertEqual(plan(nil, length: 100), .full)
        XCTAssertEqual(RangePlan.make(nil, length: 0), .full)
    }

    func test_make_ignoredHeader_isFull() {
        XCTAssertEqual(plan("items=0-5", length: 100), .full)
        XCTAssertEqual(plan("bytes=5-1", length: 100), .full)
        XCTAssertEqual(plan("junk", length: 100), .full)
    }

    func test_make_single_isSingleSpan() {
        XCTAssertEqual(plan("bytes=0-499", length: 10_000), .single(ByteSpan(first: 0, last: 499)))
    }

    func test_make_open_runsToEnd() {
        XCTAssertEqual(plan("bytes=500-", length: 10_000), .single(ByteSpan(first: 500, last: 9999)))
    }

    func test_make_suffix_isLastBytes() {
        XCTAssertEqual(plan("bytes=-500", length: 10_000), .single(ByteSpan(first: 9500, last: 9999)))
    }

    func test_make_suffixLargerThanLength_isWholeAsSingle() {
        XCTAssertEqual(plan("bytes=-500", length: 100), .single(ByteSpan(first: 0, last: 99)))
    }

    func test_make_suffixZero_isUnsatisfiable() {
        XCTAssertEqual(plan("bytes=-0", length: 100), .unsatisfiable)
    }

    func test_make_firstAtLength_isUnsatisfiable() {
        XCTAssertEqual(plan("bytes=100-", length: 100), .unsatisfiable)
        XCTAssertEqual(plan("bytes=100-200", length: 100), .unsatisfiable)
        XCTAssertEqual(plan("bytes=500-600,700-", length: 100), .unsatisfiable)
    }

    func test_make_lastBeyondLength_isClamped() {
        XCTAssertEqual(plan("bytes=50-5000", length: 100), .single(ByteSpan(first: 50, last: 99)))
    }

    func test_make_unsatisfiableAmongSatisfiable_dropsUnsatisfiable() {
        XCTAssertEqual(plan("bytes=500-,0-9", length: 100), .single(ByteSpan(first: 0, last: 9)))
        XCTAssertEqual(plan("bytes=-0,0-9", length: 100), .single(ByteSpan(first: 0, last: 9)))
    }

    func test_make_multipleDisjoint_isMultipartSorted() {
        XCTAssertEqual(plan("bytes=500-599,0-99,200-299", length: 1000),
                       .multipart([ByteSpan(first: 0, last: 99), ByteSpan(first: 200, last: 299), ByteSpan(first: 500, last: 599)]))
    }

    func test_make_multipleOverlapping_areCoalesced() {
        XCTAssertEqual(plan("bytes=0-99,50-149,400-499", length: 1000),
                       .multipart([ByteSpan(first: 0, last: 149), ByteSpan(first: 400, last: 499)]))
    }

    func test_make_multipleAdjacent_areCoalesced() {
        XCTAssertEqual(plan("bytes=0-99,100-199,300-399", length: 1000),
                       .multipart([ByteSpan(first: 0, last: 199), ByteSpan(first: 300, last: 399)]))
    }

    func test_make_overlappingIntoOne_isSingle() {
        XCTAssertEqual(plan("bytes=0-99,50-149", length: 1000), .single(ByteSpan(first: 0, last: 149)))
        XCTAssertEqual(plan("bytes=100-199,0-100", length: 1000), .single(ByteSpan(first: 0, last: 199)))
        XCTAssertEqual(plan("bytes=0-9,0-9", length: 1000), .single(ByteSpan(first: 0, last: 9)))
    }

    func test_make_suffixAndFromCovering_coalesceToSingle() {
        XCTAssertEqual(plan("bytes=-100,800-899", length: 1000), .single(ByteSpan(first: 800, last: 999)))
    }

    func test_make_amplificationWithinCap_isServed() {
        // Exactly 2x the length requested: still served (coalesced).
        XCTAssertEqual(plan("bytes=0-99,0-99", length: 100), .single(ByteSpan(first: 0, last: 99)))
    }

    func test_make_amplificationOverCap_isFull() {
        // Three copies of the whole representation: over multipartAmplification x length.
        XCTAssertEqual(RangePlan.multipartAmplification, 2)
        XCTAssertEqual(plan("bytes=0-,0-,0-", length: 100), .full)
        XCTAssertEqual(plan("bytes=0-60,10-70,20-80,30-90", length: 100), .full)
    }

    func test_make_manySmallOverlappingSpecs_isFull() {
        let value = "bytes=" + Array(repeating: "0-", count: RangeHeader.maxSpecs).joined(separator: ",")
        XCTAssertEqual(plan(value, length: 1000), .full)
    }

    func test_make_moreThan64Specs_isFull() {
        let value = "bytes=" + (0...64).map { "\($0 * 10)-\($0 * 10)" }.joined(separator: ",")
        XCTAssertEqual(plan(value, length: 100_000), .full)
    }

    func test_make_64DisjointSpecs_isMultipart() {
        let value = "bytes=" + (0..<64).reversed().map { "\($0 * 10)-\($0 * 10)" }.joined(separator: ",")
        guard case let .multipart(spans) = plan(value, length: 100_000) else { return XCTFail("expected multipart") }
        XCTAssertEqual(spans.count, 64)
        XCTAssertEqual(spans.first, ByteSpan(first: 0, last: 0))
        XCTAssertEqual(spans.map(\.first), spans.map(\.first).sorted())
    }

    func test_make_hugeNumbers_saturateAndClamp() {
        XCTAssertEqual(plan("bytes=0-99999999999999999999999999", length: 100), .single(ByteSpan(first: 0, last: 99)))
        XCTAssertEqual(plan("bytes=99999999999999999999999999-", length: 100), .unsatisfiable)
        XCTAssertEqual(plan("bytes=-99999999999999999999999999", length: 100), .single(ByteSpan(first: 0, last: 99)))
    }

    func test_make_zeroLengthWithFromRange_isUnsatisfiable() {
        XCTAssertEqual(plan("bytes=0-", length: 0), .unsatisfiable)
        XCTAssertEqual(plan("bytes=0-10", length: 0), .unsatisfiable)
    }

    func test_make_zeroLengthWithNonZeroSuffix_isFullNot416() {
        // RFC 9110 section 14.1.2: for a zero-length representation a non-zero suffix-range is the one
        // satisfiable form, so 416 (section 15.5.17) is wrong; a 206 has nothing to carry, so the
        // Range is ignored (section 14.2 allows that for an empty representation).
        XCTAssertEqual(plan("bytes=-5", length: 0), .full)
        XCTAssertEqual(plan("bytes=0-,-1", length: 0), .full)
        XCTAssertEqual(plan("bytes=-0", length: 0), .unsatisfiable)
    }

    /// FuzzRange: a saturated Content-Length (Int.max) made the sums overflow and crash.
    func test_make_atTheLargestLength_doesNotOverflow() {
        let open = RangeHeader.parse("bytes=0-,-5")
        XCTAssertEqual(RangePlan.make(open, length: Int.max), .single(ByteSpan(first: 0, last: Int.max - 1)), "coalesced into one")
        let two = RangeHeader.parse("bytes=0-0,5-5")
        XCTAssertEqual(RangePlan.make(two, length: Int.max),
                       .multipart([ByteSpan(first: 0, last: 0), ByteSpan(first: 5, last: 5)]))
        XCTAssertEqual(RangePlan.make(two, length: Int.max / 2 + 7),
                       .multipart([ByteSpan(first: 0, last: 0), ByteSpan(first: 5, last: 5)]))
    }
}
