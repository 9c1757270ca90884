/// Download jobs, in their own SQLite file beside the cache index (`downloads.db`): one row per
/// job, its record as JSON (the download engine owns the format). Separate from the index so a
/// damaged or rebuilt index never costs the list of jobs, and the index's writer queue stays the
/// index's. Writes are rare (state changes, progress every few seconds) and run on the caller's
/// thread; with WAL and synchronous=NORMAL a commit does not wait for the disk.
public final class JobDatabase {
    private let connection: SQLiteConnection
    private let upsert: SQLiteConnection.Statement
    private let delete: SQLiteConnection.Statement

    /// Opens or creates the database at `path`.
    public init(path: String) throws {
        connection = try SQLiteConnection(path: path)
        try connection.exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;")
        try connection.exec("CREATE TABLE IF NOT EXISTS jobs (id TEXT PRIMARY KEY, created INTEGER NOT NULL, record TEXT NOT NULL)")
        upsert = try connection.prepare("INSERT INTO jobs (id, created, record) VALUES (?, ?, ?) ON CONFLICT(id) DO UPDATE SET record = excluded.record")
        delete = try connection.prepare("DELETE FROM jobs WHERE id = ?")
    }

    /// Writes a job's record.
    public func save(id: String, created: Int, record: String) throws {
        upsert.reset()
        upsert.bind(1, id)
        upsert.bind(2, created)
        upsert.bind(3, record)
        _ = try upsert.step()
    }

    /// Forgets a job.
    public func remove(id: String) throws {
        delete.reset()
        delete.bind(1, id)
        _ = try delete.step()
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
}
