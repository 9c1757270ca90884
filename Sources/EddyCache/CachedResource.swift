import EddyCore
import Glibc

/// One cached resource, in memory: its current version's metadata, the bytes confirmed on disk,
/// and the open data file. Confined to its stripe's loop thread (see `CacheStore.stripes`).
///
/// Terms: a *block* is `CacheStore.blockSize` bytes at a multiple of it; *confirmed* bytes were
/// written completely from responses of this version: whole blocks as a fill passes them, and the
/// part of a block where a response began or ended inside it (a suffix, a transfer that broke
/// off). Only confirmed bytes are recorded in the index and served after a restart.
public final class CachedResource {
    /// Row id in the index; also the data file's name stem.
    public let id: Int
    /// The cache key: the normalized upstream URL. Changed only by `CacheStore.rekey` (a staged
    /// new version taking its URL's place).
    public internal(set) var key: String
    /// Incremented when the origin's representation changes; names the data file.
    public private(set) var version: Int
    public var meta: ResourceMeta
    /// Confirmed bytes of this version.
    public internal(set) var confirmed: ByteRangeSet
    /// The data file, open read-write; -1 if it could not be opened.
    public internal(set) var fd: Int32 = -1
    /// Anything attached by the layer above (the proxy keeps its fill sessions here).
    public var attachment: AnyObject?
    /// The checksum so far of the block a fill broke off inside, for the fill that continues it
    /// (in memory only: after a restart such a block is completed without one).
    public var unfinishedBlock: UnfinishedBlock?
    /// True when confirmed ranges or metadata changed since the last index commit.
    var dirty = false
    var metaDirty = false
    /// The number of the index commit that last wrote this resource (see `IndexWriter.isSettled`).
    var committedIn = 0
    var lastAccess: Int
    /// Bytes confirmed and counted in the store's total.
    var accountedBytes = 0
    /// Pinned resources are never evicted.
    public internal(set) var pinned = false
    /// Confirmed bytes read back from the index and not yet checked against their checksums in
    /// this run; bytes written in this run are trusted. Empty for most resources, so the hit path
    /// pays one `isEmpty` test.
    public internal(set) var unverified = ByteRangeSet()
    /// Committed checksums of this version, loaded on the first verification.
    var knownChecksums: [Int: UInt32]?
    /// Checksums of blocks confirmed since the last commit.
    var newChecksums: [Int: UInt32] = [:]
    /// Set by a version change: the old version's checksums go at the next commit.
    var purgeOldChecksums = false
    /// Set when the store forgot the resource (`CacheStore.remove`): nothing is written to it or
    /// counted for it again; responses still holding it read what it held (see `CacheStore.remove`).
    public internal(set) var isRemoved = false

    init(id: Int, key: String, version: Int, meta: ResourceMeta, confirmed: ByteRangeSet, lastAccess: Int) {
        self.id = id
        self.key = key
        self.version = version
        self.meta = meta
        self.confirmed = confirmed
        self.lastAccess = lastAccess
    }

    deinit { if fd >= 0 { close(fd) } }

    /// True when every byte of the representation is confirmed.
    public var isComplete: Bool {
        guard let len = meta.length else { return false }
        return confirmed.contains(0..<len)
    }

    func bumpVersion() { version += 1 }
}
