internal import CSQLite

/// A failed SQLite call: the result code, SQLite's message and the statement concerned.
///
/// The store turns these into ``StoreCore/StoreError`` (or a constraint or merge-conflict error)
/// at its boundary, so users see one error type per concern; the SQLite details stay in the
/// message.
///
/// For example:
///
/// ```swift
/// catch let error as SQLiteError where error.isUniqueViolation { … }
/// ```
struct SQLiteError: Error, CustomStringConvertible {
    /// The primary result code (`SQLITE_BUSY`, `SQLITE_CONSTRAINT`, …).
    let resultCode: Int32
    /// The extended result code (`SQLITE_CONSTRAINT_UNIQUE`, …).
    let extendedCode: Int32
    let message: String
    let sql: String?

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

    var description: String {
        "SQLite error \(extendedCode): \(message)" + (sql.map { " — in `\($0)`" } ?? "")
    }
}
