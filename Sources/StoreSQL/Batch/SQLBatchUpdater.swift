import Foundation
import StoreCore

/// Writes a batch update as one `UPDATE` statement (``SQLCompiler/batchUpdate(_:attributes:table:returning:)``),
/// for any SQL store, recording the rows it selects in history first (the predicate may no longer
/// hold afterwards).
///
/// For example:
///
/// ```swift
/// var updater = SQLBatchUpdater(store: store, connection: connection, history: nil, wantsObjectIDs: false)
/// let result = try updater.write(BatchUpdateRequest(entityName: "Post", propertiesToUpdate: ["read": .constant(.boolean(true))]))
/// ```
package struct SQLBatchUpdater<Store: SQLStore> {
    let store: Store
    let connection: Store.Connection
    package var history: SQLHistoryWriter<Store>?
    let wantsObjectIDs: Bool

    package init(store: Store, connection: Store.Connection, history: SQLHistoryWriter<Store>?, wantsObjectIDs: Bool) {
        self.store = store
        self.connection = connection
        self.history = history
        self.wantsObjectIDs = wantsObjectIDs
    }

    package mutating func write(_ update: BatchUpdateRequest) throws -> StoreBatchResult {
        let entity = try store.model.entity(named: update.entityName)
        let table = try store.schema.table(for: entity.name)
        let attributes = try BatchUpdateCheck.attributes(of: update, entity: entity)
        let compiled = try store.compiler.batchUpdate(update, attributes: attributes, table: table, returning: wantsObjectIDs ? "Z_ENT, Z_PK" : nil)
        try history?.recordUpdates(columns: Array(attributes.keys), of: compiled.selection)
        var result = StoreBatchResult()
        if wantsObjectIDs {
            let rows = store.rows
            result.updated = try connection.collect(compiled.update.sql, compiled.update.bindings) {
                rows.objectID(entityNumber: $0.int64(at: 0), key: $0.int64(at: 1))
            }
            result.count = result.updated.count
        } else {
            result.count = try connection.run(compiled.update.sql, compiled.update.bindings)
        }
        return result
    }
}
