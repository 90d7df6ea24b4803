import Foundation
import StoreCore
import StoreSQL
internal import CSQLite

/// One SQLite database connection; owns its `sqlite3` handle and closes it in `deinit`.
///
/// A connection is used by one thread at a time (the pool hands it out), so it is opened with
/// `SQLITE_OPEN_NOMUTEX`. Statements are prepared once and cached by their SQL text.
///
/// For example:
///
/// ```swift
/// let connection = try SQLiteConnection(path: "/tmp/Blog.sqlite", mode: .readWrite, log: .disabled)
/// try connection.execute("PRAGMA journal_mode = WAL")
/// let statement = try connection.cachedStatement("SELECT COUNT(*) FROM ZPOST")
/// ```
package final class SQLiteConnection: SQLConnection {
    /// `readWrite` creates the file when there is none; `readWriteExisting` never does.
    enum Mode { case readOnly, readWrite, readWriteExisting }

    let handle: OpaquePointer
    let path: String
    let log: SQLiteLog
    private var statements: [String: SQLiteStatement] = [:]
    /// The statement the last lookup found: a save runs one statement per row, and comparing
    /// its text with the same string (one buffer) is cheaper than hashing it again.
    private var lastStatement: SQLiteStatement?

    init(path: String, mode: Mode, log: SQLiteLog) throws {
        let flags = switch mode {
        case .readOnly: SQLITE_OPEN_READONLY
        case .readWrite: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        case .readWriteExisting: SQLITE_OPEN_READWRITE
        }
        var handle = try Self.open(path, flags: flags)
        // A WAL database on read-only media cannot be read normally: SQLite must create its
        // `-shm` file. Read-only, such a file is opened as immutable (no locks, no shared memory),
        // which is what it is. Tried only when the normal read fails that way.
        if mode == .readOnly, let failure = Self.probe(handle), Self.isUnwritableMedia(failure) {
            let immutable = try? Self.open(Self.immutableURI(path), flags: SQLITE_OPEN_READONLY)
            if let immutable, Self.probe(immutable) == nil {
                sqlite3_close_v2(handle)
                handle = immutable
            } else {
                if let immutable { sqlite3_close_v2(immutable) }
            }
        }
        self.handle = handle
        self.path = path
        self.log = log
        sqlite3_extended_result_codes(handle, 1)
        SQLiteFunctions.register(on: self)
    }

    private static func open(_ path: String, flags: Int32) throws -> OpaquePointer {
        var handle: OpaquePointer?
        let code = sqlite3_open_v2(path, &handle, SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI | flags, nil)
        guard code == SQLITE_OK, let handle else {
            let error = SQLiteError(code: code, connection: handle)
            sqlite3_close_v2(handle)
            throw error
        }
        return handle
    }

    /// Reads the schema once; the result code when that fails.
    private static func probe(_ handle: OpaquePointer) -> Int32? {
        let code = sqlite3_exec(handle, "SELECT COUNT(*) FROM sqlite_master", nil, nil, nil)
        return code == SQLITE_OK ? nil : code
    }

    /// `SQLITE_CANTOPEN` or a `SQLITE_READONLY` code: the file or its `-shm` cannot be created.
    private static func isUnwritableMedia(_ code: Int32) -> Bool {
        let primary = code & 0xFF
        return primary == SQLITE_CANTOPEN || primary == SQLITE_READONLY
    }

    /// `file:<path>?immutable=1`, the path escaped for a URI.
    static func immutableURI(_ path: String) -> String {
        let escaped = path.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "?", with: "%3f")
            .replacingOccurrences(of: "#", with: "%23")
        return "file:\(escaped)?immutable=1"
    }

    deinit {
        lastStatement = nil
        statements.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Runs one or more statements that take no parameters.
    func execute(_ sql: String) throws {
        log.statement(sql, [])
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        guard code == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(code))
            sqlite3_free(message)
            throw SQLiteError(code: code, message: text, sql: sql)
        }
    }

    /// A statement prepared once per connection and reused; reset and rebound by each user.
    func cachedStatement(_ sql: String) throws -> SQLiteStatement {
        if let lastStatement, lastStatement.sql == sql { return lastStatement }
        if let statement = statements[sql] {
            lastStatement = statement
            return statement
        }
        let statement = try SQLiteStatement(connection: self, sql: sql)
        statements[sql] = statement
        lastStatement = statement
        return statement
    }

    /// Runs `sql` with `values` and calls `row` for each result row.
    func query(_ sql: String, _ values: [SQLValue] = [], row: (SQLiteStatement) throws -> Void) throws {
        let statement = try cachedStatement(sql)
        try statement.bind(values)
        defer { statement.reset() }
        let started = log.isEnabled ? ContinuousClock.now : nil
        log.query(sql, values)
        var rows = 0
        while try statement.step() {
            rows += 1
            try row(statement)
        }
        if let started { log.finished(sql, rows: rows, after: ContinuousClock.now - started, connection: self) }
    }

    /// The first column of the first row, if any.
    package func scalar(_ sql: String, _ values: [SQLValue] = []) throws -> SQLValue? {
        var result: SQLValue?
        try query(sql, values) { row in if result == nil { result = row.value(at: 0) } }
        return result
    }

    /// Runs `sql` with `values` and returns what `transform` makes of each row.
    ///
    /// The store calls this through its driver protocol, unspecialized; the specializations for
    /// snapshots (every fetch) and for `Bool` (what readers that keep nothing return, as the ID
    /// list of a batched fetch: a tenth of iterating a million objects) spare each row the
    /// generic metadata lookups of a `T`.
    @_specialize(where T == StoreSnapshot)
    @_specialize(where T == Bool)
    package func collect<T>(_ sql: String, _ values: [SQLValue], _ transform: @escaping @Sendable (SQLiteStatement) throws -> T?) throws -> [T] {
        var results: [T] = []
        try query(sql, values) { row in if let value = try transform(row) { results.append(value) } }
        return results
    }

    /// Runs a statement that returns no rows, from the cache; returns how many rows it changed.
    @discardableResult
    package func run(_ sql: String, _ values: [SQLValue] = []) throws -> Int {
        let statement = try cachedStatement(sql)
        defer { statement.reset() }
        try statement.run(values)
        return changes
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    var changes: Int { Int(sqlite3_changes(handle)) }

    var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    func transaction<T>(immediate: Bool = true, _ body: () throws -> T) throws -> T {
        try execute(immediate ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            if isInTransaction { try? execute("ROLLBACK") }
            throw error
        }
    }

    /// Waits up to `seconds` for a lock held by another connection before failing with BUSY.
    func setBusyTimeout(_ seconds: Double) {
        sqlite3_busy_timeout(handle, Int32(max(0, min(seconds * 1000, Double(Int32.max)))))
    }
}
