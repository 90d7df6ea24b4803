import Foundation
import StoreCore

/// Where a batch insert writes, read once before its rows: the entity's table, its root's entity
/// number and highest key given out (`Z_MAX`, locked until the transaction ends where the
/// database locks rows — `FOR UPDATE` on PostgreSQL; SQLite's writer lock already holds), the
/// columns of the request's attributes, and the entity's uniqueness constraints as columns.
///
/// For example:
///
/// ```swift
/// let target = try SQLBatchInsertTarget(insert, store: store, on: connection)
/// var key = target.maximum   // the first new row gets key + 1
/// ```
package struct SQLBatchInsertTarget {
    package let table: EntityTable
    package let root: Int64
    package let maximum: Int64
    package let columns: [Column]
    package let constraints: [[String]]

    package init<Store: SQLStore>(_ insert: StoreBatchRequest.Insert, store: Store, on connection: Store.Connection) throws {
        let schema = store.schema
        table = try schema.table(for: insert.entityName)
        root = try schema.table(for: table.rootName).number
        let select = "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = \(schema.dialect.parameter(1, declaredType: nil))\(schema.dialect.lockingRows)"
        guard case .integer(let maximum)? = try connection.scalar(select, [.integer(root)]) else {
            throw StoreError(.corrupt, url: store.url, "Z_PRIMARYKEY has no row for entity number \(root)")
        }
        self.maximum = maximum
        let table = table
        columns = try insert.attributes.map { attribute -> Column in
            guard let column = table.column(for: attribute.name) else {
                throw StoreError(.corrupt, url: store.url, "entity \(table.name) has no column for \(attribute.name)")
            }
            return column
        }
        constraints = table.uniquenessConstraintColumns(entityName: insert.entityName, model: store.model)
    }
}
