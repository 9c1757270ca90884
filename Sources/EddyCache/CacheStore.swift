import EddyCore
import Foundation
import Logging

/// The persistent, sparse, block-granular cache: an index (SQLite) plus one sparse data file per
/// resource version, `data/XX/<id>-<version>`.
///
/// All methods run on the loop thread: the store's own, or its stripe's (`stripes`). Bytes are written with `pwrite` as they arrive; a block is
/// *confirmed* once complete, and confirmations reach the index in batches (`flush`), each after an
/// `fdatasync` of the files they name: data first, index second.
///
/// The store is the facade of `Cache`: it keeps the resources in memory and the byte totals, and
/// hands the rest to one part per job: `DataFiles` (the files), `IndexWriter` (the batched commit)
/// and `CacheEvictor` (the size limit, a listener like any other).
public final class CacheStore: Cache {
    /// The cache's blocks (see `BlockLayout`): the unit of fetching, confirming and evicting.
    public static let blocks = BlockLayout.standard
    /// Bytes per block.
    public static let blockSize = blocks.size

    /// The cache directory ("" for a store that caches nothing).
    public let directory: String
    /// What this store shares with the other stripes of its cache (all of it, unstriped).
    let share: CacheShare
    /// This stripe's number: it holds the resources whose keys hash to it (see `stripe(of:count:)`).
    public let stripe: Int
    /// Upper bound on confirmed bytes plus the index, across the stripes; 0 means unbounded.
    public var maxSize: Int {
        get { share.totals.withLock { $0.maxSize } }
        set { share.totals.withLock { $0.maxSize = newValue } }
    }
    let index: IndexDatabase
    let logger: Logger
    let files: DataFiles
    let writer: IndexWriter
    /// Resources in memory, by key: those in use, recently used, or not yet committed.
    var resources: [String: CachedResource] = [:]
    /// Resources trimmed from memory whose last commit has not landed yet, their files closed: the
    /// index does not have them as they are, so a lookup takes them back from here.
    var leaving: [String: CachedResource] = [:]
    /// Confirmed bytes across the cache (every stripe).
    public var totalBytes: Int { share.totals.withLock { $0.bytes } }
    /// Confirmed bytes of pinned resources (downloads): eviction never frees them, so they are
    /// what `--max-size` leaves for the rest of the cache and for new downloads.
    public var pinnedBytes: Int { share.totals.withLock { $0.pinned } }
    /// Bytes the index itself takes on disk (database, write-ahead log, shared memory), measured
    /// at each flush: `--max-size` bounds the whole directory, so data gets what the index leaves.
    public var indexBytes: Int { share.totals.withLock { $0.index } }
    /// What confirmed data may occupy: `maxSize` less the index.
    public var budget: Int { share.budget }
    /// Whether the index's own size counts against `maxSize` (true but in tests of tiny caches).
    public var countsIndexInLimit: Bool {
        get { share.totals.withLock { $0.countsIndexInLimit } }
        set { share.totals.withLock { $0.countsIndexInLimit = newValue } }
    }
    /// Resources in the index at start.
    public var startupCount: Int { share.startupCount }
    /// Keys whose damage was logged in this run (each is logged once).
    var damageLogged = Set<String>()
    /// Called when the store evicts a resource (for metrics).
    public var onEvict: ((Int) -> Void)?
    /// Returns true when the layer above is using the resource (fills or responses in flight).
    public var isInUse: (CachedResource) -> Bool = { _ in false }
    /// Byte ranges of an in-use resource that responses or fills still need; block eviction spares them.
    public var protectedRanges: (CachedResource) -> [Range<Int>] = { _ in [0..<Int.max] }
    /// Hands eviction victims of another stripe to it, on its loop (`evictIfIdle`); an empty list
    /// asks it to enforce the limit itself. Set by the owner of striped stores; nil for one stripe.
    public var evictElsewhere: ((_ stripe: Int, _ victims: [(id: Int, key: String)]) -> Void)?
    /// Keeps the store within `maxSize`; the first of the listeners.
    public private(set) lazy var evictor = CacheEvictor(store: self)
    lazy var listeners: [any CacheListener] = [evictor]

    /// False for a store that could not be opened (see `unavailable`): nothing is cached.
    public var isAvailable: Bool { share.isAvailable }

    /// A store that caches nothing, for when the cache directory can not be used: eddy then keeps
    /// serving by passing every response through.
    public static func unavailable(logger: Logger) throws -> CacheStore {
        try CacheStore(share: CacheShare(unavailableStripes: 1), stripe: 0, logger: logger)
    }

    /// The cache in `directory`, in one stripe.
    public convenience init(directory: String, maxSize: Int, logger: Logger) throws {
        try self.init(share: CacheShare(directory: directory, maxSize: maxSize, stripes: 1, logger: logger), stripe: 0, logger: logger)
    }

    /// The cache in `directory` as `count` stripes, one per event loop, each to be used only on
    /// its own loop's thread; they share the index, the totals and the size limit (`CacheShare`).
    public static func stripes(directory: String, maxSize: Int, count: Int, logger: Logger) throws -> [CacheStore] {
        let share = try CacheShare(directory: directory, maxSize: maxSize, stripes: count, logger: logger)
        return try (0..<count).map { try CacheStore(share: share, stripe: $0, logger: logger) }
    }

    /// `count` stripes of a store that caches nothing (see `unavailable`).
    public static func unavailableStripes(count: Int, logger: Logger) throws -> [CacheStore] {
        let share = try CacheShare(unavailableStripes: count)
        return try (0..<count).map { try CacheStore(share: share, stripe: $0, logger: logger) }
    }

    private init(share: CacheShare, stripe: Int, logger: Logger) throws {
        self.share = share
        self.stripe = stripe
        self.logger = logger
        directory = share.directory
        index = stripe == 0 ? share.index : try IndexDatabase(readingAlongside: share.index)
        files = DataFiles(directory: directory, logger: logger)
        writer = IndexWriter(index: index, directory: directory, logger: logger)
    }

    /// The stripe of `key` among `count`: a stable hash (FNV-1a) of the URL part of the key, so
    /// that every variant of a URL (`VaryKey`) falls in one stripe with it, and a restart finds
    /// each resource where it left it.
    public static func stripe(of key: String, count: Int) -> Int {
        guard count > 1 else { return 0 }
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in key.utf8 {
            if b == 1 { break } // VaryKey's separator: the URL ends here
            h = (h ^ UInt64(b)) &* 0x100_0000_01b3
        }
        return Int(h % UInt64(count))
    }

    /// The stripe `key` belongs to in this cache.
    public func stripe(of key: String) -> Int { CacheStore.stripe(of: key, count: share.stripeCount) }

    /// The resource stored under `key`, from memory or the index.
    public func lookup(_ key: String, now: Int) -> CachedResource? {
        guard isAvailable else { return nil }
        if let r = resources[key] { r.lastAccess = now; return r }
        if let r = leaving.removeValue(forKey: key) {
            r.lastAccess = now
            openStoredFile(r)
            resources[key] = r
            return r
        }
        do {
            // A row removed in memory but not yet deleted in the index must stay gone.
            guard let row = try index.lookup(key), !writer.isDeletePending(id: row.id) else { return nil }
            let r = CachedResource(id: row.id, key: key, version: row.version, meta: row.meta, confirmed: row.ranges, lastAccess: now)
            r.pinned = row.pinned
            r.accountedBytes = row.ranges.count
            r.unverified = row.ranges
            r.dirty = true // to record the new last_access
            openStoredFile(r)
            trimIfGrown() // first: the resource handed out must stay in memory
            resources[key] = r
            return r
        } catch {
            logger.error("index lookup failed", metadata: ["key": "\(key)", "error": "\(error)"])
            return nil
        }
    }

    /// Creates an empty resource (version 1) with `meta`.
    public func insert(key: String, meta: ResourceMeta, now: Int) -> CachedResource {
        if let old = resources[key] ?? leaving.removeValue(forKey: key) { remove(old) }
        let r = CachedResource(id: share.allocateID(), key: key, version: 1, meta: meta, confirmed: ByteRangeSet(), lastAccess: now)
        r.dirty = true
        files.create(r)
        trimIfGrown() // first: the resource handed out must stay in memory
        resources[key] = r
        return r
    }

    /// Every resource in memory holds a descriptor. Thousands of new URLs a second (a crawler, a
    /// cache-warming run) would exhaust RLIMIT_NOFILE between two timer flushes, so a grown table
    /// is flushed and trimmed at once (measured: EMFILE at ~15,000 resources before this).
    private func trimIfGrown() {
        if resources.count >= trimAt { flush() }
    }
    var trimAt = 2 * CacheStore.residentResources
    /// Resources kept in memory when idle; the index holds the rest.
    static let residentResources = 4096

    /// Drops every byte of the current version and starts a new one described by `meta` (the origin
    /// changed the representation). The old file is unlinked after the index stops naming it;
    /// responses already sending from it keep their own descriptors.
    public func replace(_ r: CachedResource, with meta: ResourceMeta) {
        // A removed resource keeps its version: no index row names it, a new file would be an
        // orphan, and its readers finish the bytes they began with.
        guard !r.isRemoved else { return }
        let oldPath = path(r)
        let dropped = r.accountedBytes
        share.add(-dropped, pinned: r.pinned)
        r.accountedBytes = 0
        r.confirmed = ByteRangeSet()
        r.bumpVersion()
        r.meta = meta
        r.dirty = true
        r.unverified = ByteRangeSet()
        r.knownChecksums = [:]
        r.newChecksums = [:]
        r.purgeOldChecksums = true
        if r.fd >= 0 { close(r.fd); r.fd = -1 }
        files.create(r)
        writer.unlinkAfterCommit(oldPath)
        for l in listeners { l.bytesDropped(r, count: dropped) }
    }

    /// Records refreshed metadata (a 304, RFC 9111 section 4.3.4) for the same version.
    public func refresh(_ r: CachedResource, meta: ResourceMeta) {
        r.meta = meta
        r.dirty = true
    }

    /// Writes body bytes at `offset`. Returns false when the write failed (disk full, I/O error);
    /// the caller then stops caching this response but may keep streaming it.
    public func write(_ r: CachedResource, offset: Int, bytes: UnsafeRawBufferPointer) -> Bool {
        // A removed resource's file is unlinked (or closed): a fill still running on it passes
        // its bytes through uncached rather than into a file nobody will find.
        guard !r.isRemoved else { return false }
        return files.write(fd: r.fd, offset: offset, bytes: bytes)
    }

    /// Marks `range` confirmed: the bytes were written completely from a response of this version.
    /// Callers pass block-aligned ranges but where a response began or ended inside a block, with
    /// the CRC-32 of each block written whole, by block number (committed with the ranges).
    public func confirm(_ r: CachedResource, _ range: Range<Int>, checksums: [Int: UInt32] = [:]) {
        guard !r.isRemoved else { return } // its bytes left the totals with it
        let before = r.confirmed.count
        r.confirmed.insert(range)
        if !r.unverified.isEmpty { r.unverified.remove(range) } // written in this run: trusted
        for (block, crc) in checksums {
            r.newChecksums[block] = crc
            r.knownChecksums?[block] = crc
        }
        let added = r.confirmed.count - before
        r.accountedBytes += added
        share.add(added, pinned: r.pinned)
        r.dirty = true
        // Eviction is a listener's business (`CacheEvictor`), not this method's.
        for l in listeners { l.bytesConfirmed(r, count: added) }
    }

    /// Takes `range` out of the confirmed bytes (eviction, damage) and the totals; returns the
    /// number of confirmed bytes it held.
    func unconfirm(_ r: CachedResource, _ range: Range<Int>) -> Int {
        let before = r.confirmed.count
        r.confirmed.remove(range)
        r.unverified.remove(range)
        guard !r.isRemoved else { return 0 } // its bytes left the totals, and its listeners, with it
        let freed = before - r.confirmed.count
        r.accountedBytes -= freed
        share.add(-freed, pinned: r.pinned)
        r.dirty = true
        for l in listeners { l.bytesDropped(r, count: freed) }
        return freed
    }

    /// Marks a resource used now (for least-recently-used eviction).
    public func touch(_ r: CachedResource, now: Int) {
        guard now - r.lastAccess >= 1 else { return }
        r.lastAccess = now
        r.dirty = true
        for l in listeners { l.resourceTouched(r) }
    }

    /// Pins or unpins a resource; pinned resources are never evicted.
    public func setPinned(_ r: CachedResource, _ pinned: Bool) {
        guard r.pinned != pinned else { return }
        share.pin(r.accountedBytes, pinned)
        r.pinned = pinned
        r.dirty = true
    }
}
