/// Block arithmetic, in one place: blocks are the unit in which eddy fetches, confirms, checksums
/// and evicts cached bytes. Block `i` covers bytes `i * size ..< (i + 1) * size`; the last block of
/// a resource may be shorter.
public struct BlockLayout: Sendable, Equatable {
    /// Bytes per block.
    public let size: Int

    /// 256 KiB keeps a far seek's wait for its first byte short (at most one block behind the
    /// wanted offset) and the index small.
    public static let standard = BlockLayout(size: 256 << 10)

    public init(size: Int) {
        precondition(size > 0, "block size must be positive")
        self.size = size
    }

    /// The number of the block holding `offset`.
    public func block(of offset: Int) -> Int { offset / size }

    /// The first byte of the block holding `offset` (rounds down).
    public func floor(_ offset: Int) -> Int { offset / size * size }

    /// The first block boundary at or after `offset` (rounds up).
    public func ceiling(_ offset: Int) -> Int { (offset + size - 1) / size * size }

    /// The last byte of the block holding `offset`.
    public func lastByte(ofBlockHolding offset: Int) -> Int { (offset / size + 1) * size - 1 }

    /// The bytes of block `i`, cut at `length` when the resource is that long.
    public func range(ofBlock i: Int, length: Int?) -> Range<Int> {
        i * size..<Swift.min((i + 1) * size, length ?? Int.max)
    }

    /// The blocks that `range` touches (empty range: none).
    public func blocks(touching range: Range<Int>) -> Range<Int> {
        guard !range.isEmpty else { return 0..<0 }
        return block(of: range.lowerBound)..<(block(of: range.upperBound - 1) + 1)
    }

    /// The part of `range` made of whole blocks; the short last block of a resource of `length`
    /// counts as whole when `range` reaches the end.
    public func wholeBlocks(in range: Range<Int>, length: Int?) -> Range<Int> {
        let lo = ceiling(range.lowerBound)
        let hi = range.upperBound == length ? range.upperBound : floor(range.upperBound)
        return hi > lo ? lo..<hi : lo..<lo
    }
}
