import EddyCore
import XCTest

final class ByteSpanTests: XCTestCase {
    func test_count_inclusiveBounds_isLastMinusFirstPlusOne() {
        XCTAssertEqual(ByteSpan(first: 0, last: 0).count, 1)
        XCTAssertEqual(ByteSpan(first: 0, last: 499).count, 500)
        XCTAssertEqual(ByteSpan(first: 9500, last: 9999).count, 500)
    }

    func test_range_inclusiveSpan_isHalfOpen() {
        XCTAssertEqual(ByteSpan(first: 10, last: 19).range, 10..<20)
        XCTAssertEqual(ByteSpan(first: 5, last: 5).range, 5..<6)
    }

    func test_equality_sameBounds_isEqual() {
        XCTAssertEqual(ByteSpan(first: 1, last: 2), ByteSpan(first: 1, last: 2))
        XCTAssertNotEqual(ByteSpan(first: 1, last: 2), ByteSpan(first: 1, last: 3))
        XCTAssertEqual(Set([ByteSpan(first: 1, last: 2), ByteSpan(first: 1, last: 2)]).count, 1)
    }
}
