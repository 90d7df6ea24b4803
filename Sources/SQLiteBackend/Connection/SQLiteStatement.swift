import Foundation
import StoreSQL
internal import CSQLite

/// One prepared statement; owns its `sqlite3_stmt` and finalizes it in `deinit`.
///
/// Bind values by 1-based index, step through rows, read columns by 0-based index. A statement
/// belongs to the connection that prepared it and is used on that connection's thread only.
///
/// For example:
///
/// ```swift
/// let statement = try connection.cachedStatement("SELECT ZTITLE FROM ZPOST WHERE Z_PK = ?")
/// try statement.bind([.integer(7)])
/// while try statement.step() { print(statement.string(at: 0) ?? "") }
/// ```
package final class SQLiteStatement {
    let handle: OpaquePointer
    let sql: String
    unowned let connection: SQLiteConnection
    /// How many `?` parameters the statement has.
    let parameterCount: Int
    /// Whether a text or blob larger than ``largeValueSize`` was bound since the bindings were
    /// last cleared: ``reset()`` then lets it go rather than keep it with the cached statement.
    private var holdsLargeValue = false
    private static let largeValueSize = 64 * 1024

    init(connection: SQLiteConnection, sql: String) throws {
        var handle: OpaquePointer?
        let code = sqlite3_prepare_v3(connection.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &handle, nil)
        guard code == SQLITE_OK, let handle else {
            throw SQLiteError(code: code, connection: connection.handle, sql: sql)
        }
        self.handle = handle
        self.sql = sql
        self.connection = connection
        parameterCount = Int(sqlite3_bind_parameter_count(handle))
    }

    deinit { sqlite3_finalize(handle) }

    var columnCount: Int { Int(sqlite3_column_count(handle)) }
    /// The name of a result column (its `AS` name, or the expression's text).
    func columnName(at index: Int) -> String { sqlite3_column_name(handle, Int32(index)).map { String(cString: $0) } ?? "" }

    // MARK: Binding

    /// Resets the statement and binds `values` to its parameters, in order; parameters past the
    /// end of `values` are NULL.
    func bind(_ values: [SQLValue]) throws {
        reset()
        if values.count < parameterCount { clearBindings() }
        for (offset, value) in values.enumerated() { try bind(value, at: offset + 1) }
    }

    func bind(_ value: SQLValue, at index: Int) throws {
        let position = Int32(index)
        let code: Int32
        switch value {
        case .null: code = sqlite3_bind_null(handle, position)
        case .integer(let number): code = sqlite3_bind_int64(handle, position, number)
        case .real(let number): code = sqlite3_bind_double(handle, position, number)
        case .text(var text):
            if text.utf8.count > Self.largeValueSize { holdsLargeValue = true }
            // With its byte count, so a string holding NUL is stored whole (and no C copy is made).
            code = text.withUTF8 { bytes in
                bytes.withMemoryRebound(to: CChar.self) { characters in
                    // An empty string has no base address; bind "" rather than NULL.
                    guard let start = characters.baseAddress else { return sqlite3_bind_text(handle, position, "", 0, stowage_sqlite_transient()) }
                    return sqlite3_bind_text64(handle, position, start, UInt64(characters.count), stowage_sqlite_transient(), UInt8(SQLITE_UTF8))
                }
            }
        case .blob(let data):
            if data.count > Self.largeValueSize { holdsLargeValue = true }
            code = data.withUnsafeBytes { bytes in
                // An empty Data has no base address; bind a zero-length blob, not NULL.
                sqlite3_bind_blob64(handle, position, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), UInt64(bytes.count), stowage_sqlite_transient())
            }
        }
        guard code == SQLITE_OK else { throw SQLiteError(code: code, connection: connection.handle, sql: sql) }
    }

    /// Makes the statement ready to run again. The values bound stay bound: a statement run once
    /// per row binds every parameter again (each bind lets the old value go), and clearing them
    /// all per row as well cost 3 % of an insert-heavy save. A large text or blob is let go here.
    func reset() {
        sqlite3_reset(handle)
        if holdsLargeValue { clearBindings() }
    }

    /// Unbinds every parameter: each is NULL until bound again.
    func clearBindings() {
        sqlite3_clear_bindings(handle)
        holdsLargeValue = false
    }

    // MARK: Stepping

    /// Advances to the next row; false when there are no more.
    func step() throws -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw SQLiteError(code: code, connection: connection.handle, sql: sql)
        }
    }

    /// Runs a statement that returns no rows.
    func run(_ values: [SQLValue] = []) throws {
        try bind(values)
        connection.log.statement(sql, values)
        while try step() {}
    }

    // MARK: Columns

    package func isNull(at index: Int) -> Bool { storageClass(at: index) == SQLITE_NULL }
    /// The column's storage class: `SQLITE_INTEGER`, `SQLITE_FLOAT`, `SQLITE_TEXT`, `SQLITE_BLOB` or `SQLITE_NULL`.
    func storageClass(at index: Int) -> Int32 { sqlite3_column_type(handle, Int32(index)) }
    package func int64(at index: Int) -> Int64 { sqlite3_column_int64(handle, Int32(index)) }
    package func double(at index: Int) -> Double { sqlite3_column_double(handle, Int32(index)) }

    func string(at index: Int) -> String? {
        guard let text = sqlite3_column_text(handle, Int32(index)) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, Int32(index)))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    func data(at index: Int) -> Data? {
        let position = Int32(index)
        guard sqlite3_column_type(handle, position) != SQLITE_NULL else { return nil }
        let count = Int(sqlite3_column_bytes(handle, position))
        guard count > 0, let bytes = sqlite3_column_blob(handle, position) else { return Data() }
        return Data(bytes: bytes, count: count)
    }

    /// The column as a storage-class value, as SQLite holds it.
    package func value(at index: Int) -> SQLValue {
        switch sqlite3_column_type(handle, Int32(index)) {
        case SQLITE_INTEGER: .integer(int64(at: index))
        case SQLITE_FLOAT: .real(double(at: index))
        case SQLITE_TEXT: string(at: index).map(SQLValue.text) ?? .null
        case SQLITE_BLOB: data(at: index).map(SQLValue.blob) ?? .null
        default: .null
        }
    }
}
