import Foundation
import StoreCore
import StoreSQL

/// Writes a batch update as one `UPDATE` statement (``SQLCompiler/batchUpdate(_:attributes:table:returning:)``),
/// recording the rows it selects in history first (the predicate may no longer hold afterwards).
struct BatchUpdateWriter {
    let store: SQLiteStore
    let connection: SQLiteConnection
    let history: HistoryWriter?
    let wantsObjectIDs: Bool

    func write(_ update: BatchUpdateRequest) throws -> StoreBatchResult {
        let entity = try store.model.entity(named: update.entityName)
        let table = try store.schema.table(for: entity.name)
        let attributes = try BatchUpdateCheck.attributes(of: update, entity: entity)
        let compiled = try store.compiler.batchUpdate(update, attributes: attributes, table: table, returning: wantsObjectIDs ? "Z_ENT, Z_PK" : nil)
        if let history {
            let names = QueryTranslator.literal(.text(attributes.keys.sorted().joined(separator: ",")))
            try connection.run(
                """
                INSERT INTO \(HistoryTables.changes) (ZTRANSACTION, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZCOLUMNS) \
                SELECT \(history.transaction), \(PersistentHistoryChange.ChangeType.update.rawValue), s.Z_ENT, s.Z_PK, \(names) \
                FROM (\(compiled.selection.sql)) s ORDER BY s.Z_PK
                """, compiled.selection.bindings)
        }
        var result = StoreBatchResult()
        if wantsObjectIDs {
            try connection.query(compiled.update.sql, compiled.update.bindings) { row in
                if let id = store.rows.objectID(entityNumber: row.int64(at: 0), key: row.int64(at: 1)) { result.updated.append(id) }
            }
            result.count = result.updated.count
        } else {
            try connection.run(compiled.update.sql, compiled.update.bindings)
            result.count = connection.changes
        }
        return result
    }
}
