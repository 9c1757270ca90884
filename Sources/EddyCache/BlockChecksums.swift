import CSystem

/// The CRC-32 of each block a fill writes, computed as the bytes pass through on their way to
/// the data file, so a confirmed block's checksum costs no extra read. Only blocks written whole
/// from their first byte, in order, get one; `CacheStore.confirm` records them with the block.
public struct BlockChecksums {
    /// Checksums of completed blocks not yet taken, by block number.
    private var completed: [Int: UInt32] = [:]
    /// The block being accumulated, and the offset its next byte must have.
    private var block = -1
    private var next = -1
    private var crc: UInt32 = 0
    /// False when the current block's first bytes were not seen: it gets no checksum.
    private var whole = false

    public init() {}

    /// Continues the checksum of a block whose first bytes a fill that broke off wrote.
    public init(resuming u: UnfinishedBlock) {
        block = u.block
        next = u.next
        crc = u.crc
        whole = true
    }

    /// The block being written, if every byte of it so far was seen from its start.
    public func unfinished(version: Int) -> UnfinishedBlock? {
        guard block >= 0, whole else { return nil }
        return UnfinishedBlock(version: version, block: block, next: next, crc: crc)
    }

    /// Adds `bytes` written at `offset`.
    public mutating func add(_ bytes: UnsafeRawBufferPointer, at offset: Int) {
        let blocks = CacheStore.blocks
        var off = offset
        var start = 0
        while start < bytes.count {
            let b = blocks.block(of: off)
            let end = blocks.lastByte(ofBlockHolding: off) + 1
            let n = Swift.min(bytes.count - start, end - off)
            if b != block || off != next {
                block = b
                whole = off == blocks.floor(off)
                crc = 0
            }
            if whole { crc = UInt32(truncatingIfNeeded: eddy_crc32(UInt(crc), bytes.baseAddress! + start, UInt(n))) }
            off += n
            start += n
            next = off
            if off == end {
                if whole { completed[b] = crc }
                block = -1
            }
        }
    }

    /// The checksums of the whole blocks in `range` (as confirmed), removing them; a short last
    /// block ending at `range.upperBound` counts when it was written whole and ends the resource
    /// (`length`): a span that stops inside a block is confirmed without one, as its block's
    /// checksum would cover bytes another response may add later.
    public mutating func take(_ range: Range<Int>, length: Int?) -> [Int: UInt32] {
        guard !range.isEmpty else { return [:] }
        var out: [Int: UInt32] = [:]
        for b in CacheStore.blocks.blocks(touching: range) {
            if let c = completed.removeValue(forKey: b) {
                out[b] = c
            } else if b == block, whole, next == range.upperBound, range.upperBound == length {
                out[b] = crc
            }
        }
        return out
    }
}
