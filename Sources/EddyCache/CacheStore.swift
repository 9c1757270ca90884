import CSystem
import EddyCore
import Foundation
import Logging

/// A cache directory that can not be used.
public struct CacheStoreError: Error, CustomStringConvertible {
    public let description: String
}

/// The persistent, sparse, block-granular cache: an index (SQLite) plus one sparse data file per
/// resource version, `data/XX/<id>-<version>`.
///
/// All methods run on the loop thread. Bytes are written with `pwrite` as they arrive; a block is
/// *confirmed* once complete, and confirmations reach the index in batches (`flush`), each after an
/// `fdatasync` of the files they name: data first, index second.
public final class CacheStore {
    /// The cache's blocks (see `BlockLayout`): the unit of fetching, confirming and evicting.
    public static let blocks = BlockLayout.standard
    /// Bytes per block.
    public static let blockSize = blocks.size

    public let directory: String
    /// Upper bound on confirmed bytes; 0 means unbounded.
    public var maxSize: Int
    let index: IndexDatabase
    let logger: Logger
    var resources: [String: CachedResource] = [:]
    private var nextID: Int
    /// Confirmed bytes across the cache.
    public internal(set) var totalBytes: Int
    /// Bytes the index itself takes on disk (database, write-ahead log, shared memory), measured
    /// at each flush: `--max-size` bounds the whole directory, so data gets what the index leaves.
    public private(set) var indexBytes = 0
    /// What confirmed data may occupy: `maxSize` less the index.
    public var budget: Int { Swift.max(0, maxSize - (countsIndexInLimit ? indexBytes : 0)) }
    /// Whether the index's own size counts against `maxSize` (true but in tests of tiny caches).
    public var countsIndexInLimit = true
    /// Resources in the index at start.
    public let startupCount: Int
    private var pendingDeletes: [Int] = []
    private var pendingUnlinks: [String] = []
    private var lastWriteErrorLog = 0.0
    /// Keys whose damage was logged in this run (each is logged once).
    var damageLogged = Set<String>()
    /// Called when the store evicts a resource (for metrics).
    public var onEvict: ((Int) -> Void)?
    /// Returns true when the layer above is using the resource (fills or responses in flight).
    public var isInUse: (CachedResource) -> Bool = { $0.readers > 0 }
    /// Byte ranges of an in-use resource that responses or fills still need; block eviction spares them.
    public var protectedRanges: (CachedResource) -> [Range<Int>] = { _ in [0..<Int.max] }
    var nextIndexEviction = 0.0

    /// The directory lock, held while the store is open.
    private let lockFD: Int32
    /// False for a store that could not be opened (see `unavailable`): nothing is cached.
    public let isAvailable: Bool

    /// A store that caches nothing, for when the cache directory can not be used: eddy then keeps
    /// serving by passing every response through.
    public static func unavailable(logger: Logger) throws -> CacheStore {
        try CacheStore(directory: nil, maxSize: 0, logger: logger)
    }

    public convenience init(directory: String, maxSize: Int, logger: Logger) throws {
        try self.init(directory: Optional(directory), maxSize: maxSize, logger: logger)
    }

    private init(directory: String?, maxSize: Int, logger: Logger) throws {
        isAvailable = directory != nil
        guard let directory else {
            self.directory = ""
            self.maxSize = 0
            self.logger = logger
            index = try IndexDatabase(path: ":memory:")
            lockFD = -1
            totalBytes = 0
            nextID = 1
            startupCount = 0
            return
        }
        self.directory = directory
        self.maxSize = maxSize
        self.logger = logger
        try FileManager.default.createDirectory(atPath: directory + "/data", withIntermediateDirectories: true)
        lockFD = try CacheStore.lockDirectory(directory)
        index = try IndexDatabase(path: directory + "/index.sqlite")
        let t = try index.totals()
        totalBytes = t.bytes
        nextID = t.maxID + 1
        startupCount = t.count
        // Orphaned data files (a version replaced or evicted just before a crash) are removed in the
        // background; start-up does not wait for a directory walk.
        let dir = directory, idx = index, log = logger, startupMaxID = t.maxID
        // Delayed so that walking the data directory does not compete with start-up itself.
        index.queue.asyncAfter(deadline: .now() + 10) {
            CacheStore.removeOrphans(directory: dir, index: idx, startupMaxID: startupMaxID, logger: log)
        }
    }

    /// The resource stored under `key`, from memory or the index.
    public func lookup(_ key: String, now: Int) -> CachedResource? {
        guard isAvailable else { return nil }
        if let r = resources[key] { r.lastAccess = now; return r }
        do {
            // A row removed in memory but not yet deleted in the index must stay gone.
            guard let row = try index.lookup(key), !pendingDeletes.contains(row.id) else { return nil }
            let r = CachedResource(id: row.id, key: key, version: row.version, meta: row.meta, confirmed: row.ranges, lastAccess: now)
            r.pinned = row.pinned
            r.accountedBytes = row.ranges.count
            r.unverified = row.ranges
            r.dirty = true // to record the new last_access
            openStoredFile(r)
            resources[key] = r
            trimIfGrown()
            return r
        } catch {
            logger.error("index lookup failed", metadata: ["key": "\(key)", "error": "\(error)"])
            return nil
        }
    }

    /// Creates an empty resource (version 1) with `meta`.
    public func insert(key: String, meta: ResourceMeta, now: Int) -> CachedResource {
        if let old = resources[key] { remove(old) }
        let r = CachedResource(id: nextID, key: key, version: 1, meta: meta, confirmed: ByteRangeSet(), lastAccess: now)
        nextID += 1
        r.dirty = true
        openFile(r)
        resources[key] = r
        trimIfGrown()
        return r
    }

    /// Every resource in memory holds a descriptor. Thousands of new URLs a second (a crawler, a
    /// cache-warming run) would exhaust RLIMIT_NOFILE between two timer flushes, so a grown table
    /// is flushed and trimmed at once (measured: EMFILE at ~15,000 resources before this).
    private func trimIfGrown() {
        if resources.count >= trimAt { flush() }
    }
    private var trimAt = 2 * CacheStore.residentResources
    /// Resources kept in memory when idle; the index holds the rest.
    static let residentResources = 4096

    /// Drops every byte of the current version and starts a new one described by `meta` (the origin
    /// changed the representation). The old file is unlinked after the index stops naming it;
    /// responses already sending from it keep their own descriptors.
    public func replace(_ r: CachedResource, with meta: ResourceMeta) {
        let oldPath = path(r)
        totalBytes -= r.accountedBytes
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
        openFile(r)
        pendingUnlinks.append(oldPath)
    }

    /// Records refreshed metadata (a 304, RFC 9111 section 4.3.4) for the same version.
    public func refresh(_ r: CachedResource, meta: ResourceMeta) {
        r.meta = meta
        r.dirty = true
    }

    /// Forgets a resource: index row and data file.
    public func remove(_ r: CachedResource) {
        totalBytes -= r.accountedBytes
        r.accountedBytes = 0
        r.confirmed = ByteRangeSet()
        resources[r.key] = nil
        pendingDeletes.append(r.id)
        pendingUnlinks.append(path(r))
        if r.fd >= 0 { close(r.fd); r.fd = -1 }
    }

    /// Writes body bytes at `offset`. Returns false when the write failed (disk full, I/O error);
    /// the caller then stops caching this response but may keep streaming it.
    public func write(_ r: CachedResource, offset: Int, bytes: UnsafeRawBufferPointer) -> Bool {
        guard r.fd >= 0 else { return false }
        var done = 0
        while done < bytes.count {
            let n = pwrite(r.fd, bytes.baseAddress! + done, bytes.count - done, off_t(offset + done))
            if n < 0 {
                if errno == EINTR { continue }
                let err = String(cString: strerror(errno))
                let now = Date().timeIntervalSince1970
                if now - lastWriteErrorLog > 10 { // once per interval, not once per chunk
                    lastWriteErrorLog = now
                    logger.error("cache write failed; passing through uncached", metadata: ["error": "\(err)", "dir": "\(directory)"])
                }
                return false
            }
            done += n
        }
        return true
    }

    /// The stored bytes `range` of `r`, for sending with sendfile (see `FileSpan`).
    public func span(_ r: CachedResource, _ range: Range<Int>) -> FileSpan {
        FileSpan(descriptor: r.fd, offset: range.lowerBound, length: range.count)
    }

    /// Reads `range` of `r` into `buffer` (at least `range.count` bytes); false when the file is
    /// short or unreadable.
    public func read(_ r: CachedResource, _ range: Range<Int>, into buffer: UnsafeMutableRawBufferPointer) -> Bool {
        CacheStore.read(fd: r.fd, range, into: buffer)
    }

    /// Reads all of `range` of `fd` into `buffer`, retrying short reads and EINTR; false when the
    /// file is short or unreadable.
    static func read(fd: Int32, _ range: Range<Int>, into buffer: UnsafeMutableRawBufferPointer) -> Bool {
        guard fd >= 0, buffer.count >= range.count else { return false }
        var done = 0
        while done < range.count {
            let n = pread(fd, buffer.baseAddress! + done, range.count - done, off_t(range.lowerBound + done))
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            done += n
        }
        return true
    }

    /// The bytes `range` of `r`, or nil when the file is short or unreadable.
    public func read(_ r: CachedResource, _ range: Range<Int>) -> [UInt8]? {
        var buf = [UInt8](repeating: 0, count: range.count)
        let ok = buf.withUnsafeMutableBytes { read(r, range, into: $0) }
        return ok ? buf : nil
    }

    /// Marks `range` confirmed: the bytes were written completely from one response of this version.
    /// Only whole blocks (or the short last block) count; callers pass block-aligned ranges, with
    /// the CRC-32 of each block they wrote whole, by block number (committed with the ranges).
    public func confirm(_ r: CachedResource, _ range: Range<Int>, checksums: [Int: UInt32] = [:]) {
        let before = r.confirmed.count
        r.confirmed.insert(range)
        if !r.unverified.isEmpty { r.unverified.remove(range) } // written in this run: trusted
        for (block, crc) in checksums {
            r.newChecksums[block] = crc
            r.knownChecksums?[block] = crc
        }
        let added = r.confirmed.count - before
        r.accountedBytes += added
        totalBytes += added
        r.dirty = true
        if maxSize > 0 && totalBytes > budget { evict() }
    }

    /// Takes `range` out of the confirmed bytes (eviction, damage) and the totals; returns the
    /// number of confirmed bytes it held.
    func unconfirm(_ r: CachedResource, _ range: Range<Int>) -> Int {
        let before = r.confirmed.count
        r.confirmed.remove(range)
        r.unverified.remove(range)
        let freed = before - r.confirmed.count
        r.accountedBytes -= freed
        totalBytes -= freed
        r.dirty = true
        return freed
    }

    /// Marks a resource used now (for least-recently-used eviction).
    public func touch(_ r: CachedResource, now: Int) {
        if now - r.lastAccess >= 1 { r.lastAccess = now; r.dirty = true }
    }

    /// Pins or unpins a resource; pinned resources are never evicted.
    public func setPinned(_ r: CachedResource, _ pinned: Bool) {
        r.pinned = pinned
        r.dirty = true
    }

    /// Commits dirty rows, deletions and unlinks to the index queue: fdatasync each dirty file, then
    /// one transaction, then unlink replaced files. `wait` blocks until done (shutdown, eviction).
    public func flush(wait: Bool = false) {
        var rows: [IndexDatabase.Row] = []
        var fds: [Int32] = []
        var dirtyFiles = 0
        for r in resources.values where r.dirty {
            r.dirty = false
            if r.fd >= 0 {
                dirtyFiles += 1
                // Past a few dozen files one syncfs is cheaper than an fdatasync each, and it needs
                // no duplicated descriptors (which piled up while the queue was behind).
                if dirtyFiles <= CacheStore.maxFileSyncs { fds.append(dup(r.fd)) }
            }
            rows.append(IndexDatabase.Row(id: r.id, key: r.key, version: r.version, meta: r.meta, ranges: r.confirmed,
                                          lastAccess: r.lastAccess, pinned: r.pinned, checksums: r.newChecksums,
                                          purgeOldChecksums: r.purgeOldChecksums))
            r.newChecksums = [:]
            r.purgeOldChecksums = false
        }
        let deletes = pendingDeletes, unlinks = pendingUnlinks
        pendingDeletes.removeAll()
        pendingUnlinks.removeAll()
        guard !rows.isEmpty || !deletes.isEmpty || !unlinks.isEmpty else {
            if wait { index.queue.sync {} } // earlier background commits must be done too
            return
        }
        let idx = index, log = logger
        let syncAll = dirtyFiles > CacheStore.maxFileSyncs ? syncFD : -1
        let job = {
            if syncAll >= 0 { eddy_syncfs(syncAll) }
            for fd in fds where fd >= 0 {
                if syncAll < 0 { fdatasync(fd) }
                close(fd)
            }
            do { try idx.commit(upserts: rows, deletes: deletes) } catch {
                log.error("index commit failed", metadata: ["error": "\(error)"])
            }
            for p in unlinks { unlink(p) }
        }
        if wait { index.queue.sync(execute: job) } else { index.queue.async(execute: job) }
        if maxSize > 0 { measureIndex() }
        // Resources nobody uses and whose state is committed leave memory; the index has them.
        if resources.count > CacheStore.residentResources {
            for (k, r) in resources where !r.dirty && !isInUse(r) { resources[k] = nil }
        }
        trimAt = resources.count + CacheStore.residentResources
    }

    static let maxFileSyncs = 64

    private func measureIndex() {
        var total = 0
        var st = stat()
        for suffix in ["", "-wal", "-shm"] where stat(directory + "/index.sqlite" + suffix, &st) == 0 {
            total += Int(st.st_blocks) * 512
        }
        indexBytes = total
    }
    /// The cache directory, opened on first use, for syncfs.
    private var directoryFD: Int32 = -1
    private var syncFD: Int32 {
        if directoryFD < 0 { directoryFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        return directoryFD
    }

    deinit {
        if directoryFD >= 0 { close(directoryFD) }
        if lockFD >= 0 { close(lockFD) }
    }

    /// Commits everything and folds the write-ahead log into the database, so the next start does
    /// not have to read a long WAL. Called on graceful shutdown.
    public func shutdown() {
        flush(wait: true)
        let idx = index
        idx.queue.sync { try? idx.writer.exec("PRAGMA wal_checkpoint(TRUNCATE)") }
    }

    /// The data file path of the resource's current version.
    public func path(_ r: CachedResource) -> String {
        CacheStore.dataPath(directory: directory, id: r.id, version: r.version)
    }

    /// `data/XX/<id>-<version>` under `directory`.
    static func dataPath(directory: String, id: Int, version: Int) -> String {
        "\(directory)/data/\(String(format: "%02x", id & 0xFF))/\(id)-\(version)"
    }

    /// Takes the cache directory's lock (`lock`, a POSIX record lock, which belongs to the process),
    /// so that two eddy processes, or eddy and `eddy cache verify`, never write one index; the
    /// descriptor is kept while the store is open.
    static func lockDirectory(_ directory: String) throws -> Int32 {
        let fd = open(directory + "/lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw CacheStoreError(description: "cannot open \(directory)/lock: \(String(cString: strerror(errno)))") }
        guard lockf(fd, F_TLOCK, 0) == 0 else {
            close(fd)
            throw CacheStoreError(description: "cache directory \(directory) is in use by another eddy process")
        }
        return fd
    }

    func openFile(_ r: CachedResource) {
        let p = path(r)
        let dir = (p as NSString).deletingLastPathComponent
        mkdir(dir, 0o755)
        r.fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        if r.fd < 0 {
            logger.error("cannot open cache file", metadata: ["path": "\(p)", "error": "\(String(cString: strerror(errno)))"])
        }
    }

    /// Removes data files the index does not name: older versions, and ids that were never committed.
    /// Ids above `startupMaxID` and versions above the committed one belong to this run and are kept.
    private static func removeOrphans(directory: String, index: IndexDatabase, startupMaxID: Int, logger: Logger) {
        guard let versions = try? index.allVersions() else { return }
        let fm = FileManager.default
        let data = directory + "/data"
        var removed = 0
        for sub in (try? fm.contentsOfDirectory(atPath: data)) ?? [] {
            for name in (try? fm.contentsOfDirectory(atPath: "\(data)/\(sub)")) ?? [] {
                let parts = name.split(separator: "-")
                if parts.count == 2, let id = Int(parts[0]), let v = Int(parts[1]) {
                    if id > startupMaxID { continue }
                    if let committed = versions[id], v >= committed { continue }
                }
                unlink("\(data)/\(sub)/\(name)")
                removed += 1
            }
        }
        if removed > 0 { logger.info("removed orphaned cache files", metadata: ["count": "\(removed)"]) }
    }
}
