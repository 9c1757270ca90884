import EddyCache

/// Download jobs, in their own SQLite file beside the cache index (`downloads.db`): one row per
/// job, its record as JSON (the download engine owns the format). Separate from the index so a
/// damaged or rebuilt index never costs the list of jobs, and the index's writer queue stays the
/// index's. Writes are rare (state changes, progress every few seconds) and run on the caller's
/// thread; with WAL and synchronous=NORMAL a commit does not wait for the disk.
public final class JobDatabase {
    let connection: SQLiteConnection
    private let upsert: SQLiteConnection.Statement
    private let delete: SQLiteConnection.Statement
    private let deleteRecorded: SQLiteConnection.Statement
    private let insertRecorded: SQLiteConnection.Statement
    private let deleteSegment: SQLiteConnection.Statement

    /// Opens or creates the database at `path`.
    public init(path: String) throws {
        connection = try SQLiteConnection(path: path)
        try connection.exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;")
        try connection.exec("CREATE TABLE IF NOT EXISTS jobs (id TEXT PRIMARY KEY, created INTEGER NOT NULL, record TEXT NOT NULL)")
        upsert = try connection.prepare("INSERT INTO jobs (id, created, record) VALUES (?, ?, ?) ON CONFLICT(id) DO UPDATE SET record = excluded.record")
        delete = try connection.prepare("DELETE FROM jobs WHERE id = ?")
        // A live recording's segments, one row each, appended as reloads find them: a recording
        // of hours is never rewritten whole.
        try connection.exec("CREATE TABLE IF NOT EXISTS recorded (job TEXT NOT NULL, rendition TEXT NOT NULL, sequence INTEGER NOT NULL, segment TEXT NOT NULL, PRIMARY KEY (job, rendition, sequence))")
        insertRecorded = try connection.prepare("INSERT OR REPLACE INTO recorded (job, rendition, sequence, segment) VALUES (?, ?, ?, ?)")
        deleteRecorded = try connection.prepare("DELETE FROM recorded WHERE job = ?")
        deleteSegment = try connection.prepare("DELETE FROM recorded WHERE job = ? AND rendition = ? AND sequence = ?")
        // Ids of deleted jobs, so that deleting again answers as the first time, also after a restart.
        try connection.exec("CREATE TABLE IF NOT EXISTS removed (id TEXT PRIMARY KEY, at INTEGER NOT NULL)")
        // A job's artwork (PNG or JPEG, at most 1 MiB), read when served, never held in memory.
        try connection.exec("CREATE TABLE IF NOT EXISTS artwork (job TEXT PRIMARY KEY, type TEXT NOT NULL, data BLOB NOT NULL)")
    }

    /// Writes a job's record.
    public func save(id: String, created: Int, record: String) throws {
        upsert.reset()
        upsert.bind(1, id)
        upsert.bind(2, created)
        upsert.bind(3, record)
        _ = try upsert.step()
    }

    /// Forgets a job and what it recorded.
    public func remove(id: String) throws {
        delete.reset()
        delete.bind(1, id)
        _ = try delete.step()
        deleteRecorded.reset()
        deleteRecorded.bind(1, id)
        _ = try deleteRecorded.step()
        let art = try connection.prepare("DELETE FROM artwork WHERE job = ?")
        art.bind(1, id)
        _ = try art.step()
    }

    /// Remembers that job `id` was deleted at `at`, keeping the latest `keep` ids.
    public func remember(removed id: String, at: Int, keep: Int = 1000) throws {
        let q = try connection.prepare("INSERT OR REPLACE INTO removed (id, at) VALUES (?, ?)")
        q.bind(1, id)
        q.bind(2, at)
        _ = try q.step()
        let prune = try connection.prepare("DELETE FROM removed WHERE id NOT IN (SELECT id FROM removed ORDER BY at DESC, id LIMIT ?)")
        prune.bind(1, keep)
        _ = try prune.step()
    }

    /// Ids of deleted jobs, oldest first.
    public func removed() throws -> [String] {
        let q = try connection.prepare("SELECT id FROM removed ORDER BY at, id")
        var out: [String] = []
        while try q.step() { if let id = q.string(0) { out.append(id) } }
        return out
    }

    /// Adds segments of a job's live recording of `rendition` (each `(sequence, record)`), in one transaction.
    public func record(job: String, rendition: String, _ segments: [(sequence: Int, record: String)]) throws {
        guard !segments.isEmpty else { return }
        try connection.exec("BEGIN")
        do {
            for s in segments {
                insertRecorded.reset()
                insertRecorded.bind(1, job)
                insertRecorded.bind(2, rendition)
                insertRecorded.bind(3, s.sequence)
                insertRecorded.bind(4, s.record)
                _ = try insertRecorded.step()
            }
            try connection.exec("COMMIT")
        } catch {
            try? connection.exec("ROLLBACK")
            throw error
        }
    }

    /// Forgets one recorded segment (the origin no longer had it).
    public func forget(job: String, rendition: String, sequence: Int) throws {
        deleteSegment.reset()
        deleteSegment.bind(1, job)
        deleteSegment.bind(2, rendition)
        deleteSegment.bind(3, sequence)
        _ = try deleteSegment.step()
    }

    /// A job's recorded segments, by rendition, in sequence order.
    public func recorded(job: String) throws -> [String: [String]] {
        let q = try connection.prepare("SELECT rendition, segment FROM recorded WHERE job = ? ORDER BY rendition, sequence")
        q.bind(1, job)
        var out: [String: [String]] = [:]
        while try q.step() {
            if let r = q.string(0), let s = q.string(1) { out[r, default: []].append(s) }
        }
        return out
    }

    /// Every job, oldest first.
    public func all() throws -> [(id: String, record: String)] {
        let q = try connection.prepare("SELECT id, record FROM jobs ORDER BY created, id")
        var out: [(String, String)] = []
        while try q.step() {
            if let id = q.string(0), let record = q.string(1) { out.append((id, record)) }
        }
        return out
    }

    /// Folds the write-ahead log into the file and empties it, at a clean stop. eddy exits without
    /// closing its connections, and a log left behind (up to 4 MiB at SQLite's default checkpoint)
    /// is read whole by the next start before its first answer.
    public func checkpoint() {
        do { try connection.exec("PRAGMA wal_checkpoint(TRUNCATE)") } catch {}
    }
}
