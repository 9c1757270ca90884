/// The CRC-32 of a block's first bytes, kept in memory when a fill broke off inside it, so the
/// fill that continues at `next` completes the block's checksum over bytes that passed through
/// this run, never over bytes read back from disk (which a checksum would then vouch for).
public struct UnfinishedBlock: Equatable, Sendable {
    /// The resource's version the bytes belong to.
    public let version: Int
    public let block: Int
    /// The offset of the first byte not yet written.
    public let next: Int
    /// CRC-32 of the block's bytes before `next`.
    public let crc: UInt32
}
