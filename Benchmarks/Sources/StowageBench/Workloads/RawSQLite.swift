import GRDBSQLite

/// The smallest owner of a `sqlite3` handle the raw baselines need: open, run SQL, prepare.
/// The timed loops call the C API directly on `handle` and on a ``RawStatement``'s handle.
final class RawDatabase {
    let handle: OpaquePointer
    let path: String

    /// Opens (or creates) `path` read-write, without SQLite's own mutex: one thread uses it.
    init(path: String) throws {
        var handle: OpaquePointer?
        let code = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        guard code == SQLITE_OK, let handle else {
            sqlite3_close_v2(handle)
            throw BenchmarkError.failed("cannot open \(path): \(String(cString: sqlite3_errstr(code)))")
        }
        self.handle = handle
        self.path = path
    }

    deinit { sqlite3_close_v2(handle) }

    /// WAL with `synchronous = NORMAL`, as GRDB sets up every file database (and the SQLite
    /// workloads ask Stowage for the same).
    static func openWAL(path: String) throws -> RawDatabase {
        let database = try RawDatabase(path: path)
        try database.execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL")
        return database
    }

    func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        guard code == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(code))
            sqlite3_free(message)
            throw BenchmarkError.failed("\(sql): \(text)")
        }
    }

    func prepare(_ sql: String) throws -> RawStatement {
        try RawStatement(database: self, sql: sql)
    }

    /// Throws SQLite's message for a result code that is not `expected`.
    func check(_ code: Int32, _ what: String, expected: Int32 = SQLITE_OK) throws {
        guard code == expected else { throw BenchmarkError.failed("\(what): \(String(cString: sqlite3_errmsg(handle)))") }
    }

    /// The integer in the first column of the first row of `sql`.
    func integer(_ sql: String) throws -> Int64 {
        let statement = try prepare(sql)
        try check(sqlite3_step(statement.handle), sql, expected: SQLITE_ROW)
        return sqlite3_column_int64(statement.handle, 0)
    }
}

/// A prepared statement, finalized in `deinit`.
final class RawStatement {
    let handle: OpaquePointer
    let database: RawDatabase

    init(database: RawDatabase, sql: String) throws {
        var handle: OpaquePointer?
        let code = sqlite3_prepare_v3(database.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &handle, nil)
        guard code == SQLITE_OK, let handle else {
            throw BenchmarkError.failed("cannot prepare \(sql): \(String(cString: sqlite3_errmsg(database.handle)))")
        }
        self.handle = handle
        self.database = database
    }

    deinit { sqlite3_finalize(handle) }

    /// The text in column `index` of the current row ("" for NULL), decoded with its length.
    @inline(__always)
    func string(at index: Int32) -> String {
        guard let text = sqlite3_column_text(handle, index) else { return "" }
        return String(decoding: UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(handle, index))), as: UTF8.self)
    }

    /// Binds `text` (SQLite copies it: SQLITE_TRANSIENT).
    @inline(__always)
    func bind(_ text: String, at index: Int32) -> Int32 {
        var text = text
        return text.withUTF8 { bytes in
            sqlite3_bind_text(handle, index, bytes.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) },
                              Int32(bytes.count), RawStatement.transient)
        }
    }

    /// SQLITE_TRANSIENT, a cast macro Swift does not import.
    static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
