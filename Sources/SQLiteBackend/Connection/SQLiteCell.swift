import Foundation
internal import CSQLite

/// One column of a statement's current row, taken once with `sqlite3_column_value` and read
/// through SQLite's value functions. Each `sqlite3_column_*` call finds the column again and
/// checks the statement's error state, which cost as much as the read itself; a row's reader
/// takes each column once instead. Valid until the statement steps or resets, on the
/// statement's thread (connections are opened `SQLITE_OPEN_NOMUTEX` and used by one thread at
/// a time, so SQLite's unprotected values are safe to read here).
///
/// For example:
///
/// ```swift
/// let cell = SQLiteCell(statement: statement, position: 3)
/// if cell.storageClass == SQLITE_FLOAT { print(cell.double) }
/// ```
struct SQLiteCell {
    // Optional only as the C API is imported: SQLite answers a column outside the row (or a
    // statement without one) with its static NULL value, never a null pointer, so the `nil`
    // cases below cannot occur.
    private let value: OpaquePointer?

    @inline(__always)
    init(statement: SQLiteStatement, position: Int) {
        value = sqlite3_column_value(statement.handle, Int32(position))
    }

    /// `SQLITE_INTEGER`, `SQLITE_FLOAT`, `SQLITE_TEXT`, `SQLITE_BLOB` or `SQLITE_NULL`.
    var storageClass: Int32 { value.map { sqlite3_value_type($0) } ?? SQLITE_NULL }
    /// The value as a 64-bit integer, converted as `sqlite3_column_int64` does.
    var int64: Int64 { value.map { sqlite3_value_int64($0) } ?? 0 }
    /// The value as a double, converted as `sqlite3_column_double` does.
    var double: Double { value.map { sqlite3_value_double($0) } ?? 0 }
    /// The value as UTF-8 text (ill-formed sequences repaired), converted as
    /// `sqlite3_column_text` does; `nil` for NULL, or when SQLite could not convert it.
    var text: String? {
        guard let value, let bytes = sqlite3_value_text(value) else { return nil }
        return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_value_bytes(value))), as: UTF8.self)
    }
}
