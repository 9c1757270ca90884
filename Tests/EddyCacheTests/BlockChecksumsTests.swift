@testable import EddyCache
import XCTest

/// A block's CRC-32 is the same whether one response wrote it or a resumed one completed it after
/// the first broke off, as long as every byte from the block's start was seen in order.
final class BlockChecksumsTests: XCTestCase {
    private let size = CacheStore.blockSize
    private lazy var bytes: [UInt8] = (0..<(2 * size)).map { UInt8(truncatingIfNeeded: $0 &* 2654435761 >> 7) }

    private func sums(_ pieces: [Range<Int>], base: Int = 0) -> [Int: UInt32] {
        var c = BlockChecksums()
        for p in pieces { bytes[p].withUnsafeBytes { c.add($0, at: base + p.lowerBound) } }
        return c.take(base..<(base + 2 * size), length: nil)
    }

    func test_aBlockCompletedInTwoPieces_hasTheChecksumOfTheBlockWrittenAtOnce() {
        let whole = sums([0..<(2 * size)])
        XCTAssertEqual(whole.count, 2)
        XCTAssertEqual(sums([0..<1000, 1000..<(2 * size)]), whole)
        XCTAssertEqual(sums([0..<(size + 77), (size + 77)..<(2 * size)]), whole)
    }

    func test_aBlockWhoseStartWasNotSeen_getsNone() {
        let got = sums([1000..<(2 * size)])
        XCTAssertNil(got[0])
        XCTAssertNotNil(got[1])
    }

    func test_aGapInsideABlock_dropsItsChecksum() {
        let got = sums([0..<1000, 1001..<(2 * size)])
        XCTAssertNil(got[0], "bytes not seen in order: no checksum")
        XCTAssertNotNil(got[1])
    }

    func test_aFillThatBrokeOff_handsItsUnfinishedBlockToTheOneThatContinues() {
        let whole = sums([0..<(2 * size)])
        var first = BlockChecksums()
        bytes[0..<1000].withUnsafeBytes { first.add($0, at: 0) }
        let u = try! XCTUnwrap(first.unfinished(version: 3))
        XCTAssertEqual(u.next, 1000)
        XCTAssertEqual(u.block, 0)
        XCTAssertEqual(u.version, 3)
        var second = BlockChecksums(resuming: u)
        bytes[1000..<(2 * size)].withUnsafeBytes { second.add($0, at: 1000) }
        XCTAssertEqual(second.take(0..<(2 * size), length: nil), whole)
    }

    func test_aBlockWhoseStartWasNotSeen_leavesNothingToContinue() {
        var c = BlockChecksums()
        bytes[10..<1000].withUnsafeBytes { c.add($0, at: 10) }
        XCTAssertNil(c.unfinished(version: 1))
        bytes[1000..<size].withUnsafeBytes { c.add($0, at: 1000) }
        XCTAssertNil(c.unfinished(version: 1), "on a block boundary nothing is unfinished")
    }
}
