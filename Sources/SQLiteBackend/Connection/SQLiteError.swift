internal import CSQLite

/// A failed SQLite call: the result code, SQLite's message and the statement concerned.
///
/// The store turns these into a `StoreError` (or a constraint or merge-conflict error) at its
/// boundary, so users catch one error type per concern; the SQLite failure itself stays
/// available as the store error's `underlyingError`.
///
/// For example:
///
/// ```swift
/// catch let error as StoreError {
///     if let sqlite = error.underlyingError as? SQLiteError, sqlite.resultCode == 13 {
///         print("the disk is full")   // SQLITE_FULL
///     }
/// }
/// ```
public struct SQLiteError: Error, CustomStringConvertible, Sendable {
    /// The primary result code (`SQLITE_BUSY` = 5, `SQLITE_CONSTRAINT` = 19, …; sqlite.org/rescode.html).
    public let resultCode: Int32
    /// The extended result code (`SQLITE_CONSTRAINT_UNIQUE` = 2067, …).
    public let extendedCode: Int32
    /// SQLite's own message (`sqlite3_errmsg`).
    public let message: String
    /// The statement that failed, when there was one.
    public let sql: String?

    init(code: Int32, connection: OpaquePointer?, sql: String? = nil) {
        resultCode = code & 0xFF
        extendedCode = connection.map { sqlite3_extended_errcode($0) } ?? code
        message = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
            ?? String(cString: sqlite3_errstr(code))
        self.sql = sql
    }

    init(code: Int32, message: String, sql: String? = nil) {
        resultCode = code & 0xFF
        extendedCode = code
        self.message = message
        self.sql = sql
    }

    /// `SQLITE_CONSTRAINT_UNIQUE` or `SQLITE_CONSTRAINT_PRIMARYKEY` (macros Swift cannot import).
    var isUniqueViolation: Bool {
        extendedCode == SQLITE_CONSTRAINT | (8 << 8) || extendedCode == SQLITE_CONSTRAINT | (6 << 8)
    }
    /// The file is not a database, or is damaged.
    var isCorruption: Bool { resultCode == SQLITE_NOTADB || resultCode == SQLITE_CORRUPT }
    var isBusy: Bool { resultCode == SQLITE_BUSY || resultCode == SQLITE_LOCKED }
    /// The file (or its directory) cannot be opened for writing: read-only media or permissions.
    var isUnwritable: Bool { resultCode == SQLITE_READONLY || resultCode == SQLITE_CANTOPEN || resultCode == SQLITE_PERM }

    public var description: String {
        "SQLite error \(extendedCode): \(message)" + (sql.map { " — in `\($0)`" } ?? "")
    }
}
