import EddyCore
import Foundation

/// The persistent index: one SQLite row per resource with its metadata and confirmed byte ranges.
///
/// Why it is crash-safe: SQLite runs in WAL mode, so each commit is atomic and survives a killed
/// process. eddy commits a row's ranges only after `fdatasync` of the data file those ranges name
/// (`IndexWriter`), so the index never vouches for bytes that are not on disk, even after a
/// power loss; the worst case is losing the last second of confirmations, which are fetched again.
/// A version change writes a new data file name, so old bytes cannot be mistaken for new ones.
final class IndexDatabase {
    /// Read connection, used on the loop thread for lookups.
    let reader: SQLiteConnection
    /// Write connection, used only on `queue`.
    let writer: SQLiteConnection
    /// Serial queue for every write and fsync, keeping the loop thread free of disk waits. The
    /// stripes of one cache share it (see `init(readingAlongside:)`).
    let queue: DispatchQueue
    /// The database file (":memory:" for the store of last resort).
    let path: String
    private let lookupStatement: SQLiteConnection.Statement
    private var upsertStatement: SQLiteConnection.Statement!
    private var deleteStatement: SQLiteConnection.Statement!

    /// A row as stored.
    struct Row {
        var id: Int
        var key: String
        var version: Int
        var meta: ResourceMeta
        var ranges: ByteRangeSet
        var lastAccess: Int
        var pinned: Bool
        /// Checksums of blocks confirmed since the last commit, by block number.
        var checksums: [Int: UInt32] = [:]
        /// Set after a version change: checksums of older versions are deleted.
        var purgeOldChecksums = false
    }

    init(path: String) throws {
        self.path = path
        queue = DispatchQueue(label: "eddy.index")
        writer = try SQLiteConnection(path: path)
        try writer.exec("PRAGMA journal_mode=WAL")
        try writer.exec("PRAGMA synchronous=NORMAL")
        // The index counts against --max-size: checkpoint the write-ahead log at 1 MiB (not the
        // default 4 MiB) and cut it back to that size afterwards (it otherwise keeps its peak).
        try writer.exec("PRAGMA wal_autocheckpoint=256")
        try writer.exec("PRAGMA journal_size_limit=1048576")
        try writer.exec("""
            CREATE TABLE IF NOT EXISTS resources(
              id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, version INTEGER NOT NULL,
              length INTEGER, etag TEXT, last_modified TEXT, content_type TEXT, headers TEXT,
              stored_at INTEGER NOT NULL, ranges BLOB, bytes INTEGER NOT NULL DEFAULT 0,
              last_access INTEGER NOT NULL, pinned INTEGER NOT NULL DEFAULT 0, status INTEGER NOT NULL DEFAULT 200);
            CREATE INDEX IF NOT EXISTS resources_lru ON resources(pinned, last_access);
            """)
        // Indexes made before non-200 responses were stored lack the status column: every row is a 200.
        if (try? writer.prepare("SELECT status FROM resources LIMIT 0")) == nil {
            try writer.exec("ALTER TABLE resources ADD COLUMN status INTEGER NOT NULL DEFAULT 200")
        }
        // Totals kept by triggers in the same transactions as the rows, so start-up reads one row
        // instead of summing every resource (100,000 rows: ~20 ms).
        try writer.exec("""
            CREATE TABLE IF NOT EXISTS totals(id INTEGER PRIMARY KEY CHECK (id = 1), bytes INTEGER NOT NULL, count INTEGER NOT NULL);
            CREATE TRIGGER IF NOT EXISTS totals_insert AFTER INSERT ON resources BEGIN
              UPDATE totals SET bytes = bytes + new.bytes, count = count + 1 WHERE id = 1; END;
            CREATE TRIGGER IF NOT EXISTS totals_update AFTER UPDATE OF bytes ON resources BEGIN
              UPDATE totals SET bytes = bytes - old.bytes + new.bytes WHERE id = 1; END;
            CREATE TRIGGER IF NOT EXISTS totals_delete AFTER DELETE ON resources BEGIN
              UPDATE totals SET bytes = bytes - old.bytes, count = count - 1 WHERE id = 1; END;
            """)
        // One CRC-32 per confirmed block, written in the same transaction as the ranges that vouch
        // for the block, so that bytes flipped on disk are caught before they are served.
        try writer.exec("""
            CREATE TABLE IF NOT EXISTS blocks(id INTEGER NOT NULL, block INTEGER NOT NULL, version INTEGER NOT NULL,
              crc INTEGER NOT NULL, PRIMARY KEY(id, block)) WITHOUT ROWID;
            CREATE TRIGGER IF NOT EXISTS blocks_delete AFTER DELETE ON resources BEGIN
              DELETE FROM blocks WHERE id = old.id; END;
            """)
        let hasTotals = try writer.prepare("SELECT COUNT(*) FROM totals")
        _ = try hasTotals.step()
        if hasTotals.int(0) == 0 { // first start of this index: sum once
            try writer.exec("INSERT INTO totals SELECT 1, COALESCE(SUM(bytes), 0), COUNT(*) FROM resources")
        }
        // ":memory:" (the store of last resort) is private to one connection, so it reads through the writer.
        reader = path == ":memory:" ? writer : try SQLiteConnection(path: path)
        lookupStatement = try reader.prepare(IndexDatabase.lookupSQL)
        upsertStatement = try writer.prepare("""
            INSERT INTO resources(id, key, version, length, etag, last_modified, content_type, headers,
                                  stored_at, ranges, bytes, last_access, pinned, status)
            VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)
            ON CONFLICT(id) DO UPDATE SET key=excluded.key, version=excluded.version, length=excluded.length, etag=excluded.etag,
              last_modified=excluded.last_modified, content_type=excluded.content_type, headers=excluded.headers,
              stored_at=excluded.stored_at, ranges=excluded.ranges, bytes=excluded.bytes,
              last_access=excluded.last_access, pinned=excluded.pinned, status=excluded.status
            """)
        deleteStatement = try writer.prepare("DELETE FROM resources WHERE id = ?")
        checksumUpsert = try writer.prepare("INSERT OR REPLACE INTO blocks(id, block, version, crc) VALUES(?,?,?,?)")
        checksumPurge = try writer.prepare("DELETE FROM blocks WHERE id = ? AND version <> ?")
        checksumLookup = try reader.prepare(IndexDatabase.checksumSQL)
    }

    /// Another reader of the index `shared` opened, for a cache stripe on another thread (see
    /// `CacheStore.stripes`): it reads through a connection of its own, because a connection and
    /// its statements serve one thread at a time, and writes through `shared`'s, on its one
    /// queue, so that commits of every stripe stay serial (one writer, no SQLITE_BUSY waits).
    init(readingAlongside shared: IndexDatabase) throws {
        path = shared.path
        queue = shared.queue
        writer = shared.writer
        reader = path == ":memory:" ? shared.reader : try SQLiteConnection(path: path)
        lookupStatement = try reader.prepare(IndexDatabase.lookupSQL)
        upsertStatement = shared.upsertStatement
        deleteStatement = shared.deleteStatement
        checksumUpsert = shared.checksumUpsert
        checksumPurge = shared.checksumPurge
        checksumLookup = try reader.prepare(IndexDatabase.checksumSQL)
    }

    private static let lookupSQL = """
        SELECT id, key, version, length, etag, last_modified, content_type, headers, stored_at, ranges,
               last_access, pinned, status FROM resources WHERE key = ?
        """
    private static let checksumSQL = "SELECT block, crc FROM blocks WHERE id = ? AND version = ?"
    private var checksumUpsert: SQLiteConnection.Statement!
    private var checksumPurge: SQLiteConnection.Statement!
    private var checksumLookup: SQLiteConnection.Statement!

    /// Loop thread (or the verifier, alone): the committed checksums of one version, by block.
    func checksums(id: Int, version: Int) throws -> [Int: UInt32] {
        let s = checksumLookup!
        s.reset()
        s.bind(1, id)
        s.bind(2, version)
        var out: [Int: UInt32] = [:]
        while try s.step() { out[s.int(0)] = UInt32(truncatingIfNeeded: s.int(1)) }
        s.reset()
        return out
    }

    /// Every row, for `eddy cache verify` (which runs alone on the cache).
    func allRows() throws -> [Row] {
        let s = try reader.prepare("""
            SELECT id, key, version, length, etag, last_modified, content_type, headers, stored_at, ranges,
                   last_access, pinned, status FROM resources ORDER BY id
            """)
        var out: [Row] = []
        while try s.step() {
            let meta = ResourceMeta(length: s.optionalInt(3), etag: s.string(4), lastModified: s.string(5),
                                    contentType: s.string(6), headers: ResourceMeta.headers(from: s.string(7)), storedAt: s.int(8),
                                    status: s.int(12))
            out.append(Row(id: s.int(0), key: s.string(1) ?? "", version: s.int(2), meta: meta,
                           ranges: IndexDatabase.decode(s.blob(9)), lastAccess: s.int(10), pinned: s.int(11) != 0))
        }
        return out
    }

    /// Loop thread: the row for `key`, if committed.
    func lookup(_ key: String) throws -> Row? {
        lookupStatement.reset()
        lookupStatement.bind(1, key)
        guard try lookupStatement.step() else { return nil }
        let s = lookupStatement
        let meta = ResourceMeta(length: s.optionalInt(3), etag: s.string(4), lastModified: s.string(5),
                                contentType: s.string(6), headers: ResourceMeta.headers(from: s.string(7)), storedAt: s.int(8),
                                status: s.int(12))
        let row = Row(id: s.int(0), key: s.string(1) ?? key, version: s.int(2), meta: meta,
                      ranges: IndexDatabase.decode(s.blob(9)), lastAccess: s.int(10), pinned: s.int(11) != 0)
        lookupStatement.reset()
        return row
    }

    /// Loop thread, at start: total confirmed bytes and the highest id.
    func totals() throws -> (bytes: Int, maxID: Int, count: Int) {
        let s = try reader.prepare("SELECT t.bytes, COALESCE((SELECT MAX(id) FROM resources), 0), t.count FROM totals t WHERE t.id = 1")
        _ = try s.step()
        return (s.int(0), s.int(1), s.int(2))
    }

    /// Loop thread, at start: confirmed bytes of pinned resources (few rows: the pinned ones,
    /// found through the `resources_lru` index).
    func pinnedBytes() throws -> Int {
        let s = try reader.prepare("SELECT COALESCE(SUM(bytes), 0) FROM resources WHERE pinned = 1")
        _ = try s.step()
        return s.int(0)
    }

    /// Loop thread: least recently used, unpinned resources, oldest first.
    func evictionCandidates(limit: Int) throws -> [(id: Int, key: String, bytes: Int)] {
        let s = try reader.prepare("SELECT id, key, bytes FROM resources WHERE pinned = 0 ORDER BY last_access LIMIT \(limit)")
        var out: [(Int, String, Int)] = []
        while try s.step() { out.append((s.int(0), s.string(1) ?? "", s.int(2))) }
        return out
    }

    /// Loop thread: a page of committed rows whose key starts with `prefix`, in `order`, after the
    /// row `after` names (its sort value and key): keyset pagination over a total order.
    func list(prefix: String, order: ResourceOrder, after: (value: Int, key: String)?,
              limit: Int) throws -> [(id: Int, summary: ResourceSummary)] {
        let columns = "id, key, version, status, length, bytes, pinned, last_access, content_type"
        let match = "substr(key, 1, length(?1)) = ?1"
        let sql: String
        switch order {
        case .key: sql = "SELECT \(columns) FROM resources WHERE \(match) AND key > ?3 ORDER BY key LIMIT ?4"
        case .bytes, .lastAccess:
            let c = order == .bytes ? "bytes" : "last_access"
            sql = "SELECT \(columns) FROM resources WHERE \(match) AND (\(c) < ?2 OR (\(c) = ?2 AND key > ?3)) ORDER BY \(c) DESC, key LIMIT ?4"
        }
        let s = try reader.prepare(sql)
        s.bind(1, prefix)
        s.bind(2, after?.value ?? Int.max)
        s.bind(3, after?.key ?? "")
        s.bind(4, limit)
        var out: [(Int, ResourceSummary)] = []
        while try s.step() {
            out.append((s.int(0), ResourceSummary(key: s.string(1) ?? "", version: s.int(2), status: s.int(3), length: s.optionalInt(4),
                                                  bytes: s.int(5), pinned: s.int(6) != 0, lastAccess: s.int(7), contentType: s.string(8))))
        }
        return out
    }

    /// Loop thread: committed rows whose key lies strictly between `low` and `high` (a range scan
    /// of the key index), in no particular order.
    func keys(between low: String, and high: String) throws -> [(id: Int, key: String, lastAccess: Int)] {
        let s = try reader.prepare("SELECT id, key, last_access FROM resources WHERE key > ?1 AND key < ?2")
        s.bind(1, low)
        s.bind(2, high)
        var out: [(Int, String, Int)] = []
        while try s.step() { out.append((s.int(0), s.string(1) ?? "", s.int(2))) }
        return out
    }

    /// Index queue: writes the rows in one transaction.
    func commit(upserts: [Row], deletes: [Int]) throws {
        try writer.exec("BEGIN IMMEDIATE")
        do {
            for id in deletes {
                deleteStatement.reset()
                deleteStatement.bind(1, id)
                _ = try deleteStatement.step()
            }
            for r in upserts {
                let s = upsertStatement!
                s.reset()
                s.bind(1, r.id); s.bind(2, r.key); s.bind(3, r.version); s.bind(4, r.meta.length)
                s.bind(5, r.meta.etag); s.bind(6, r.meta.lastModified); s.bind(7, r.meta.contentType)
                s.bind(8, r.meta.headerText); s.bind(9, r.meta.storedAt); s.bind(10, blob: IndexDatabase.encode(r.ranges))
                s.bind(11, r.ranges.count); s.bind(12, r.lastAccess); s.bind(13, r.pinned ? 1 : 0); s.bind(14, r.meta.status)
                _ = try s.step()
                if r.purgeOldChecksums {
                    checksumPurge.reset()
                    checksumPurge.bind(1, r.id)
                    checksumPurge.bind(2, r.version)
                    _ = try checksumPurge.step()
                }
                for (block, crc) in r.checksums {
                    let c = checksumUpsert!
                    c.reset()
                    c.bind(1, r.id); c.bind(2, block); c.bind(3, r.version); c.bind(4, Int(crc))
                    _ = try c.step()
                }
            }
            try writer.exec("COMMIT")
        } catch {
            try? writer.exec("ROLLBACK")
            throw error
        }
    }

    /// Index queue: every (id, version) pair, for removing orphaned data files at start.
    func allVersions() throws -> [Int: Int] {
        let s = try writer.prepare("SELECT id, version FROM resources")
        var out: [Int: Int] = [:]
        while try s.step() { out[s.int(0)] = s.int(1) }
        return out
    }
}
