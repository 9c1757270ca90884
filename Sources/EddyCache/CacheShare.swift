import EddyCore
import Foundation
import Logging

/// What the stripes of one cache share (see `CacheStore.stripes`): the directory and its lock,
/// the index's write side (one connection, one queue), the id space, the byte totals and the size
/// limit. Everything else (the resources in memory, their files, pending deletions, the evictor,
/// the listeners) belongs to one stripe and is touched only on its loop. Safe from any thread:
/// the numbers sit behind one mutex, held only to read or add.
///
/// The layout on disk does not depend on the number of stripes: one index, one data directory.
/// A resource's stripe is a stable hash of its key (`CacheStore.stripe(of:count:)`), so a restart
/// with another number of loops finds every resource again, in whichever stripe it now falls.
public final class CacheShare: @unchecked Sendable {
    /// The numbers every stripe reads and adds to.
    struct Totals {
        /// Confirmed bytes across the cache.
        var bytes: Int
        /// Confirmed bytes of pinned resources (downloads), which eviction never frees.
        var pinned: Int
        /// Bytes the index takes on disk, measured at each flush.
        var index = 0
        /// Upper bound on confirmed bytes plus the index; 0 means unbounded.
        var maxSize: Int
        var countsIndexInLimit = true
        /// The next resource id (row id and data file name), unique across stripes.
        var nextID: Int
    }

    /// The cache directory ("" for a store that caches nothing).
    let directory: String
    /// False for a store that could not be opened: nothing is cached.
    let isAvailable: Bool
    /// The index as the first stripe opened it: its writer and queue serve every stripe.
    let index: IndexDatabase
    /// Stripes sharing this (1 for an unstriped store).
    let stripeCount: Int
    /// Resources in the index at start.
    let startupCount: Int
    let totals: Locked<Totals>
    /// The directory lock, held while the cache is open.
    private let lockFD: Int32

    /// Opens the cache in `directory`: creates it, takes its lock, reads the totals, and schedules
    /// the removal of orphaned data files.
    init(directory: String, maxSize: Int, stripes: Int, logger: Logger) throws {
        self.directory = directory
        isAvailable = true
        stripeCount = stripes
        // Owner only: downloads keep AES-128 keys here (issue 13), and cached bodies are private.
        try DataFiles.makeDirectories(directory + "/data", mode: 0o700)
        DataFiles.makeSubdirectoriesAhead(directory + "/data")
        lockFD = try DataFiles.lockDirectory(directory)
        index = try IndexDatabase(path: directory + "/index.sqlite")
        let t = try index.totals()
        totals = Locked(Totals(bytes: t.bytes, pinned: try index.pinnedBytes(), maxSize: maxSize, nextID: t.maxID + 1))
        startupCount = t.count
        // Orphaned data files (a version replaced or evicted just before a crash) are removed in the
        // background; start-up does not wait for a directory walk, and is delayed so that walking
        // the data directory does not compete with start-up itself.
        let idx = index, startupMaxID = t.maxID
        index.queue.asyncAfter(deadline: .now() + 10) {
            DataFiles.removeOrphans(directory: directory, index: idx, startupMaxID: startupMaxID, logger: logger)
        }
    }

    /// The share of a store that caches nothing (see `CacheStore.unavailable`).
    init(unavailableStripes stripes: Int) throws {
        directory = ""
        isAvailable = false
        stripeCount = stripes
        index = try IndexDatabase(path: ":memory:")
        totals = Locked(Totals(bytes: 0, pinned: 0, maxSize: 0, nextID: 1))
        startupCount = 0
        lockFD = -1
    }

    deinit {
        if lockFD >= 0 { close(lockFD) }
    }

    /// A new resource id.
    func allocateID() -> Int {
        totals.withLock { t in
            defer { t.nextID += 1 }
            return t.nextID
        }
    }

    /// Adds `delta` confirmed bytes (negative: freed), also to the pinned bytes when `pinned`.
    func add(_ delta: Int, pinned: Bool) {
        guard delta != 0 else { return }
        totals.withLock { t in
            t.bytes += delta
            if pinned { t.pinned += delta }
        }
    }

    /// Moves `bytes` confirmed bytes into (or out of) the pinned bytes.
    func pin(_ bytes: Int, _ pinned: Bool) {
        totals.withLock { $0.pinned += pinned ? bytes : -bytes }
    }

    /// What confirmed data may occupy: `maxSize` less the index (0 when unbounded).
    var budget: Int {
        totals.withLock { Swift.max(0, $0.maxSize - ($0.countsIndexInLimit ? $0.index : 0)) }
    }

    /// True when the cache is bounded and its confirmed bytes exceed `budget`.
    var isOverBudget: Bool {
        totals.withLock { t in t.maxSize > 0 && t.bytes > Swift.max(0, t.maxSize - (t.countsIndexInLimit ? t.index : 0)) }
    }
}
