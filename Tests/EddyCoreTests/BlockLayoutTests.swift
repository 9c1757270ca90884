import XCTest
@testable import EddyCore

final class BlockLayoutTests: XCTestCase {
    private let b = BlockLayout(size: 100)

    func test_floorAndCeiling_roundToBoundaries() {
        XCTAssertEqual(b.floor(0), 0)
        XCTAssertEqual(b.floor(99), 0)
        XCTAssertEqual(b.floor(100), 100)
        XCTAssertEqual(b.ceiling(0), 0)
        XCTAssertEqual(b.ceiling(1), 100)
        XCTAssertEqual(b.ceiling(100), 100)
        XCTAssertEqual(b.ceiling(101), 200)
    }

    func test_lastByte_ofBlockHoldingOffset() {
        XCTAssertEqual(b.lastByte(ofBlockHolding: 0), 99)
        XCTAssertEqual(b.lastByte(ofBlockHolding: 99), 99)
        XCTAssertEqual(b.lastByte(ofBlockHolding: 100), 199)
    }

    func test_rangeOfBlock_isCutAtTheLength() {
        XCTAssertEqual(b.range(ofBlock: 2, length: nil), 200..<300)
        XCTAssertEqual(b.range(ofBlock: 2, length: 250), 200..<250)
    }

    func test_blocksTouching_coversPartialBlocksAtBothEnds() {
        XCTAssertEqual(b.blocks(touching: 0..<1), 0..<1)
        XCTAssertEqual(b.blocks(touching: 99..<101), 0..<2)
        XCTAssertEqual(b.blocks(touching: 100..<200), 1..<2)
        XCTAssertEqual(b.blocks(touching: 150..<150), 0..<0)
    }

    func test_wholeBlocks_dropsPartialEndsButKeepsTheShortLastBlock() {
        XCTAssertEqual(b.wholeBlocks(in: 50..<350, length: nil), 100..<300)
        XCTAssertEqual(b.wholeBlocks(in: 50..<350, length: 350), 100..<350)
        XCTAssertTrue(b.wholeBlocks(in: 10..<90, length: nil).isEmpty)
        XCTAssertEqual(b.wholeBlocks(in: 0..<100, length: 1000), 0..<100)
    }

    func test_standard_is256KiB() {
        XCTAssertEqual(BlockLayout.standard.size, 262_144)
    }
}
