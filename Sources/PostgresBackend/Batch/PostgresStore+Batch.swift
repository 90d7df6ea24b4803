#if Postgres  // the PostgreSQL store is built only with the Postgres package trait (Package.swift)
import Foundation
import StoreCore
import StoreSQL

extension PostgresStore {
    /// Runs a batch request in SQL, in one transaction that also records its history: inserts
    /// many rows per statement (row by row with `ON CONFLICT` when upserting), updates as one
    /// `UPDATE`, deletes as one `DELETE` when no relationship or preserved history value is
    /// involved — otherwise through the generic executor, which applies delete rules through
    /// change sets (still one transaction per save it makes).
    public func execute(_ request: StoreBatchRequest) throws -> StoreBatchResult {
        guard !isReadOnly else { throw StoreError(.readOnly, url: url, "the store is read-only; nothing was written") }
        if case .delete(let target) = request.operation, !(try deletesInSQL(target)) {
            return try BatchExecutor(store: self, request: request).run()
        }
        let result = try write { connection -> StoreBatchResult in
            let history = isHistoryTrackingEnabled
                ? try HistoryTables.begin(HistoryRecord(author: request.transactionAuthor, contextName: request.contextName), on: connection, lockName: schemaName)
                : nil
            let result: StoreBatchResult
            switch request.operation {
            case .insert(let insert):
                result = try ServerBatchInsert(store: self, connection: connection, history: history, wantsObjectIDs: request.wantsObjectIDs).write(insert)
            case .update(let update):
                result = try batchUpdate(update, wantsObjectIDs: request.wantsObjectIDs, history: history, on: connection)
            case .delete(let target):
                result = try batchDelete(target, wantsObjectIDs: request.wantsObjectIDs, history: history, on: connection)
            }
            if result.count > 0 { try notifyCommit(on: connection) }
            return result
        }
        prefetched.removeAll()
        return result
    }

    /// One `UPDATE … RETURNING`, its rows recorded in history first (the predicate may no longer
    /// hold afterwards).
    private func batchUpdate(_ update: BatchUpdateRequest, wantsObjectIDs: Bool, history: Int64?, on connection: ServerConnection) throws -> StoreBatchResult {
        let entity = try model.entity(named: update.entityName)
        let table = try schema.table(for: entity.name)
        let attributes = try BatchUpdateCheck.attributes(of: update, entity: entity)
        let compiled = try compiler.batchUpdate(update, attributes: attributes, table: table, returning: wantsObjectIDs ? "Z_ENT, Z_PK" : nil)
        if let history {
            let names = QueryTranslator.literal(.text(attributes.keys.sorted().joined(separator: ",")))
            try connection.run(
                """
                INSERT INTO \(HistoryTables.changes) (ZTRANSACTION, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZCOLUMNS) \
                SELECT \(history), \(PersistentHistoryChange.ChangeType.update.rawValue), s.Z_ENT, s.Z_PK, \(names) \
                FROM (\(compiled.selection.sql)) s ORDER BY s.Z_PK
                """, compiled.selection.bindings)
        }
        var result = StoreBatchResult()
        if wantsObjectIDs {
            result.updated = try connection.query(compiled.update.sql, compiled.update.bindings).compactMap { row in
                rows.objectID(entityNumber: row.int64(at: 0), key: row.int64(at: 1))
            }
            result.count = result.updated.count
        } else {
            result.count = try connection.run(compiled.update.sql, compiled.update.bindings)
        }
        return result
    }

    /// Whether a batch delete can be one `DELETE`: nothing points at the entity's rows or from
    /// them (no delete rule to apply), and its history keeps no tombstone values.
    private func deletesInSQL(_ target: BatchDeleteRequest.Target) throws -> Bool {
        let entityName: String
        switch target {
        case .fetchRequest(let request): entityName = request.entityName
        case .objectIDs(let ids):
            guard let first = ids.first, ids.allSatisfy({ $0.entityName == first.entityName }) else { return false }
            entityName = first.entityName
        }
        let table = try schema.table(for: entityName)
        let hierarchy = model.entities.filter { schema.tables[$0.name]?.rootName == table.rootName }
        let names = Set(hierarchy.map(\.name))
        let related = model.entities.contains { entity in
            entity.relationships.contains { names.contains(entity.name) || names.contains($0.destinationEntity?.name ?? "") }
        }
        let preserves = hierarchy.contains { !HistoryRecord.preservedAttributes(of: $0.name, model: model).isEmpty }
        return !related && !(isHistoryTrackingEnabled && preserves)
    }

    private func batchDelete(_ target: BatchDeleteRequest.Target, wantsObjectIDs: Bool, history: Int64?, on connection: ServerConnection) throws -> StoreBatchResult {
        let sql: String
        let bindings: [SQLValue]
        switch target {
        case .fetchRequest(let request):
            var fetch = request
            fetch.resultType = .managedObjectID
            let selection = try compiler.selectObjects(fetch, columns: ["t0.Z_PK"])
            let table = try schema.table(for: request.entityName)
            sql = "DELETE FROM \(table.table) WHERE Z_PK IN (\(selection.sql)) RETURNING Z_ENT, Z_PK"
            bindings = selection.bindings
        case .objectIDs(let ids):
            guard let first = ids.first else { return StoreBatchResult() }
            let table = try schema.table(for: first.entityName)
            sql = "DELETE FROM \(table.table) WHERE Z_PK = ANY($1::BIGINT[]) AND Z_ENT = ANY($2::BIGINT[]) RETURNING Z_ENT, Z_PK"
            let numbers = Set(ids.compactMap { schema.tables[$0.entityName]?.number })
            bindings = [schema.dialect.keyList(ids.filter { $0.storeIdentifier == identifier }.compactMap(\.primaryKey)), schema.dialect.keyList(numbers.sorted())]
        }
        let deleted = try connection.query(sql, bindings).map { (number: $0.int64(at: 0), key: $0.int64(at: 1)) }
        if let history, !deleted.isEmpty {
            try connection.run(
                """
                INSERT INTO \(HistoryTables.changes) (ZTRANSACTION, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTOMBSTONE) \
                SELECT $1, \(PersistentHistoryChange.ChangeType.delete.rawValue), e, k, '{}' FROM unnest($2::BIGINT[], $3::BIGINT[]) AS d(e, k) ORDER BY k
                """, [.integer(history), schema.dialect.keyList(deleted.map(\.number)), schema.dialect.keyList(deleted.map(\.key))])
        }
        var result = StoreBatchResult(count: deleted.count)
        if wantsObjectIDs { result.deleted = deleted.compactMap { rows.objectID(entityNumber: $0.number, key: $0.key) } }
        return result
    }
}
#endif
