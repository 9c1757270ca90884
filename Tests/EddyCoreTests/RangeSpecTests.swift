import EddyCore
import XCTest

/// RFC 9110 section 14.1.2: resolving byte-range specs against a known length.
final class RangeSpecTests: XCTestCase {
    func test_resolve_closedWithinLength_isExact() {
        XCTAssertEqual(RangeSpec.from(first: 0, last: 499).resolve(length: 10_000), ByteSpan(first: 0, last: 499))
        XCTAssertEqual(RangeSpec.from(first: 500, last: 999).resolve(length: 10_000), ByteSpan(first: 500, last: 999))
    }

    func test_resolve_open_runsToLastByte() {
        XCTAssertEqual(RangeSpec.from(first: 9500, last: nil).resolve(length: 10_000), ByteSpan(first: 9500, last: 9999))
    }

    func test_resolve_lastBeyondLength_isClamped() {
        XCTAssertEqual(RangeSpec.from(first: 10, last: 1_000_000).resolve(length: 100), ByteSpan(first: 10, last: 99))
        XCTAssertEqual(RangeSpec.from(first: 0, last: Int.max).resolve(length: 100), ByteSpan(first: 0, last: 99))
    }

    func test_resolve_firstAtOrBeyondLength_isNil() {
        XCTAssertNil(RangeSpec.from(first: 100, last: nil).resolve(length: 100))
        XCTAssertNil(RangeSpec.from(first: 100, last: 200).resolve(length: 100))
        XCTAssertNil(RangeSpec.from(first: Int.max, last: nil).resolve(length: 100))
    }

    func test_resolve_lastByteOnly_isOneByte() {
        XCTAssertEqual(RangeSpec.from(first: 99, last: 99).resolve(length: 100), ByteSpan(first: 99, last: 99))
    }

    func test_resolve_suffix_isLastNBytes() {
        XCTAssertEqual(RangeSpec.suffix(length: 500).resolve(length: 10_000), ByteSpan(first: 9500, last: 9999))
        XCTAssertEqual(RangeSpec.suffix(length: 1).resolve(length: 10_000), ByteSpan(first: 9999, last: 9999))
    }

    func test_resolve_suffixLargerThanLength_isWholeRepresentation() {
        XCTAssertEqual(RangeSpec.suffix(length: 500).resolve(length: 100), ByteSpan(first: 0, last: 99))
        XCTAssertEqual(RangeSpec.suffix(length: 100).resolve(length: 100), ByteSpan(first: 0, last: 99))
        XCTAssertEqual(RangeSpec.suffix(length: Int.max).resolve(length: 100), ByteSpan(first: 0, last: 99))
    }

    func test_resolve_suffixZero_isNil() {
        XCTAssertNil(RangeSpec.suffix(length: 0).resolve(length: 100))
    }

    func test_resolve_zeroLength_hasNoSpan() {
        XCTAssertNil(RangeSpec.from(first: 0, last: nil).resolve(length: 0))
        XCTAssertNil(RangeSpec.suffix(length: 5).resolve(length: 0))
    }
}
