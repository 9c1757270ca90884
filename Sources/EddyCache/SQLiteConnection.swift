import CSQLite

/// A failed SQLite call, with SQLite's message.
public struct SQLiteError: Error, CustomStringConvertible {
    public let description: String
}

/// A minimal SQLite connection: exec, prepared statements, typed columns. Not thread-safe; each
/// connection is used from one thread (the loop's for lookups, the index queue's for writes).
/// Package-wide: the download engine keeps its jobs in a database of its own (`JobDatabase`).
package final class SQLiteConnection {
    package let db: OpaquePointer

    package init(path: String) throws {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        guard sqlite3_open_v2(path, &handle, flags, nil) == SQLITE_OK, let handle else {
            throw SQLiteError(description: "cannot open \(path)")
        }
        db = handle
        sqlite3_busy_timeout(db, 5000)
    }

    deinit { sqlite3_close_v2(db) }

    package var lastError: String { String(cString: sqlite3_errmsg(db)) }

    package func exec(_ sql: String) throws {
        var err: UnsafeMutablePointer<CChar>?
        if sqlite3_exec(db, sql, nil, nil, &err) != SQLITE_OK {
            let msg = err.map { String(cString: $0) } ?? lastError
            sqlite3_free(err)
            throw SQLiteError(description: "\(msg) in: \(sql.prefix(80))")
        }
    }

    package func prepare(_ sql: String) throws -> Statement {
        var stmt: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &stmt, nil) == SQLITE_OK, let stmt else {
            throw SQLiteError(description: "\(lastError) in: \(sql.prefix(80))")
        }
        return Statement(stmt: stmt, connection: self)
    }

    /// A prepared statement; `reset()` before reuse.
    package final class Statement {
        package let stmt: OpaquePointer
        unowned let connection: SQLiteConnection
        init(stmt: OpaquePointer, connection: SQLiteConnection) {
            self.stmt = stmt
            self.connection = connection
        }
        deinit { sqlite3_finalize(stmt) }

        package func reset() {
            sqlite3_reset(stmt)
            sqlite3_clear_bindings(stmt)
        }
        package func bind(_ i: Int32, _ v: Int) { sqlite3_bind_int64(stmt, i, Int64(v)) }
        package func bind(_ i: Int32, _ v: Int?) { if let v { bind(i, v) } else { sqlite3_bind_null(stmt, i) } }
        package func bind(_ i: Int32, _ v: String?) {
            if let v { eddy_sqlite3_bind_text_transient(stmt, i, v) } else { sqlite3_bind_null(stmt, i) }
        }
        package func bind(_ i: Int32, blob: [UInt8]) {
            blob.withUnsafeBytes { _ = eddy_sqlite3_bind_blob_transient(stmt, i, $0.baseAddress, Int32($0.count)) }
        }
        /// Steps once; true when a row is available.
        package func step() throws -> Bool {
            let rc = sqlite3_step(stmt)
            if rc == SQLITE_ROW { return true }
            if rc == SQLITE_DONE { return false }
            throw SQLiteError(description: connection.lastError)
        }
        package func int(_ i: Int32) -> Int { Int(sqlite3_column_int64(stmt, i)) }
        package func optionalInt(_ i: Int32) -> Int? { sqlite3_column_type(stmt, i) == SQLITE_NULL ? nil : int(i) }
        package func string(_ i: Int32) -> String? {
            guard let p = sqlite3_column_text(stmt, i) else { return nil }
            return String(cString: p)
        }
        package func blob(_ i: Int32) -> [UInt8] {
            let n = Int(sqlite3_column_bytes(stmt, i))
            guard n > 0, let p = sqlite3_column_blob(stmt, i) else { return [] }
            return Array(UnsafeRawBufferPointer(start: p, count: n))
        }
    }
}
