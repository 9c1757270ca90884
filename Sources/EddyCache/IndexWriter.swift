import CSystem
import EddyCore
import Foundation
import Logging

/// The batched commit of the cache's state to the index, in the order that keeps the index honest:
/// fdatasync the data files a batch names (or one syncfs), then one transaction, then unlink the
/// files the index stopped naming. Runs on the index queue so the loop thread never waits for a
/// disk, except when a caller asks to (shutdown, eviction).
final class IndexWriter {
    let index: IndexDatabase
    private let directory: String
    private let logger: Logger
    /// Rows removed in memory and not yet queued for deletion.
    private var pendingDeletes: [Int] = []
    /// What the index queue has not finished yet: rows removed in memory (queued or not), and the
    /// last commit it finished. A commit runs in the background, so until it lands the index still
    /// holds what memory dropped: a lookup there would bring a removed row back as a second
    /// resource of one file (its bytes then subtracted twice), or a trimmed one as it was before.
    private let unsettled = Locked(Unsettled())
    private struct Unsettled {
        var deletes: Set<Int> = []
        var finished = 0
    }
    /// The number of the last commit queued.
    private var queued = 0
    /// Files to unlink once the index no longer names them.
    private var pendingUnlinks: [String] = []
    /// The cache directory, opened on first use, for syncfs.
    private var directoryFD: Int32 = -1

    /// Past this many dirty files one syncfs is cheaper than an fdatasync each, and it needs no
    /// duplicated descriptors (which piled up while the queue was behind).
    static let maxFileSyncs = 64

    init(index: IndexDatabase, directory: String, logger: Logger) {
        self.index = index
        self.directory = directory
        self.logger = logger
    }

    deinit { if directoryFD >= 0 { close(directoryFD) } }

    /// Queues the deletion of row `id` and the unlink of its data file `path`, both at the next commit.
    func delete(id: Int, path: String) {
        pendingDeletes.append(id)
        unsettled.withLock { _ = $0.deletes.insert(id) }
        pendingUnlinks.append(path)
    }

    /// Queues the unlink of `path` (a replaced version) until after the next commit: the index must
    /// stop naming a file before it goes.
    func unlinkAfterCommit(_ path: String) {
        pendingUnlinks.append(path)
    }

    /// True when row `id` is removed in memory but not yet in the index, so a lookup must not
    /// bring it back (a later commit would re-upsert it and unlink its file).
    func isDeletePending(id: Int) -> Bool { unsettled.withLock { $0.deletes.contains(id) } }

    /// Rows removed in memory and not yet deleted in the index.
    var pendingDeleteIDs: [Int] { unsettled.withLock { Array($0.deletes) } }

    /// True when the index has `r` as memory has it: it is not dirty, and the commit that last
    /// wrote it has landed. Only such a resource may leave memory.
    func isSettled(_ r: CachedResource) -> Bool {
        !r.dirty && r.committedIn <= unsettled.withLock { $0.finished }
    }

    /// Commits the dirty resources among `resources`, the queued deletions and unlinks. With `wait`
    /// it returns once they (and every earlier commit) are done. Returns false when there was
    /// nothing to commit.
    func commit(_ resources: some Sequence<CachedResource>, wait: Bool) -> Bool {
        var rows: [IndexDatabase.Row] = []
        var fds: [Int32] = []
        var dirtyFiles = 0
        let number = queued + 1
        for r in resources where r.dirty {
            r.dirty = false
            r.committedIn = number
            if r.fd >= 0 {
                dirtyFiles += 1
                if dirtyFiles <= IndexWriter.maxFileSyncs { fds.append(dup(r.fd)) }
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
            return false
        }
        queued = number
        let idx = index, log = logger, unsettled = self.unsettled
        let syncAll = dirtyFiles > IndexWriter.maxFileSyncs ? syncFD : -1
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
            unsettled.withLock { u in
                u.deletes.subtract(deletes)
                u.finished = number
            }
        }
        if wait { index.queue.sync(execute: job) } else { index.queue.async(execute: job) }
        return true
    }

    /// Bytes the index takes on disk now: database, write-ahead log and shared memory.
    func measureIndex() -> Int {
        var total = 0
        var st = stat()
        for suffix in ["", "-wal", "-shm"] where stat(directory + "/index.sqlite" + suffix, &st) == 0 {
            total += Int(st.st_blocks) * 512
        }
        return total
    }

    /// Folds the write-ahead log into the database, so the next start does not have to read a long
    /// WAL; waits for earlier commits.
    func checkpoint() {
        let idx = index
        idx.queue.sync { try? idx.writer.exec("PRAGMA wal_checkpoint(TRUNCATE)") }
    }

    private var syncFD: Int32 {
        if directoryFD < 0 { directoryFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        return directoryFD
    }
}
