import Foundation
import StoreCore

/// One connection of a SQL store's driver: what the shared store logic (``SQLStore``) asks of a
/// database — run a statement with bound values, read rows by column index, read one value.
/// Transactions are the driver's own (the store's `read`/`write` open them), so are savepoints.
///
/// SQLite's driver is `SQLiteConnection`; PostgreSQL's is `PostgresSession`. A third engine's
/// driver implements this protocol, ``SQLRow`` and ``SQLDialect`` (docs/writing-a-store.md,
/// "Writing a SQL driver").
///
/// For example:
///
/// ```swift
/// let names = try connection.collect("SELECT ZNAME FROM ZTAG WHERE Z_PK > ?1", [.integer(10)]) { row in
///     row.value(at: 0)
/// }
/// let changed = try connection.run("DELETE FROM ZTAG WHERE Z_PK = ?1", [.integer(3)])
/// ```
package protocol SQLConnection: AnyObject {
    associatedtype Row: SQLRow

    /// Runs a query and returns what `transform` makes of each row, in order (`nil`: the row is
    /// skipped). `transform` may run on another thread while the caller waits; what it throws
    /// ends the query and is rethrown.
    func collect<T>(_ sql: String, _ values: [SQLValue], _ transform: @escaping @Sendable (Row) throws -> T?) throws -> [T]

    /// Runs a statement and returns how many rows it inserted, updated or deleted.
    @discardableResult
    func run(_ sql: String, _ values: [SQLValue]) throws -> Int

    /// The first column of the first row, or `nil` when there is no row.
    func scalar(_ sql: String, _ values: [SQLValue]) throws -> SQLValue?
}

/// A result row of a SQL store's connection, read by column index. (Its type is named in the
/// `@Sendable` closure a fetch hands the driver for each row, which may run on another thread.)
package protocol SQLRow: SendableMetatype {
    /// Whether a column is NULL.
    func isNull(at index: Int) -> Bool
    /// A column read as a 64-bit integer (0 for NULL).
    func int64(at index: Int) -> Int64
    /// A column read as a double (0 for NULL).
    func double(at index: Int) -> Double
    /// The raw value of a column.
    func value(at index: Int) -> SQLValue
    /// A column read as an attribute of `type` (a driver may read its native types directly).
    ///
    /// - Throws: ``StoreError`` (`corrupt`) for a value the attribute type cannot hold (a
    ///   PostgreSQL `NUMERIC` `NaN` read as a decimal), never a silent NULL.
    func storeValue(at index: Int, as type: AttributeType) throws -> StoreValue
    /// Reads the attribute columns of a row into `values` (just made, all `.null`), by property
    /// index, as ``storeValue(at:as:)`` reads each, setting each with `StoreValues.initialize`. One call per row: a call through the protocol per
    /// column was a tenth of the row reading of a fetch (a generic implementation here is not
    /// specialized for the driver's row type across modules).
    func readAttributes(_ columns: UnsafeBufferPointer<AttributeColumn>, into values: inout StoreValues) throws
    /// The first three columns of an object row, `Z_PK`, `Z_ENT` and `Z_OPT`, read as
    /// ``int64(at:)`` reads them: one call per row (a driver may read them faster together).
    func keys() -> (primaryKey: Int64, entityNumber: Int64, version: Int64)
}

extension SQLRow {
    package func keys() -> (primaryKey: Int64, entityNumber: Int64, version: Int64) {
        (int64(at: 0), int64(at: 1), int64(at: 2))
    }
}

/// Where a row holds an attribute: its select-list position, its property index and its type.
package struct AttributeColumn: Sendable {
    package let position: Int
    package let propertyIndex: Int
    package let type: AttributeType
    /// The type's slot kind, a trivial value: a driver's loop over a row's columns reads this (and
    /// `type` only for the less common kinds) through the buffer, because a copy of an
    /// `AttributeType` switches over its payload — for every column of every row.
    package let slotKind: StoreValueLayout.SlotKind

    package init(position: Int, propertyIndex: Int, type: AttributeType) {
        self.position = position
        self.propertyIndex = propertyIndex
        self.type = type
        slotKind = StoreValueLayout.SlotKind(type)
    }
}

extension SQLRow {
    /// A column read as text, or `nil` when it holds something else.
    package func text(at index: Int) -> String? {
        if case .text(let text) = value(at: index) { return text }
        return nil
    }
}
