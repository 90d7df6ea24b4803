import Foundation
import StoreCore

/// A statement that reads rows of one table by key, and how each of its rows becomes a
/// snapshot — for a driver that runs it its own way (PostgreSQL starts it ahead of time).
///
/// For example:
///
/// ```swift
/// let query = try store.snapshotQuery(ofRoot: "Post", keys: [4, 5, 6])   // Z_PK BETWEEN $1 AND $2
/// let snapshots = try connection.collect(query.sql, query.bindings) { try query.snapshot(from: $0) }
/// ```
package struct SnapshotQuery: Sendable {
    package let sql: String
    package let bindings: [SQLValue]
    let rows: RowReader
    let layout: RowReader.Layout
    let external: (@Sendable (Data) throws -> Data)?

    /// The snapshot of one of the statement's rows (`nil` for a row of an entity the model does not know).
    package func snapshot(from row: some SQLRow) throws -> StoreSnapshot? {
        try rows.snapshot(from: row, layout: layout, external: external)
    }
}
