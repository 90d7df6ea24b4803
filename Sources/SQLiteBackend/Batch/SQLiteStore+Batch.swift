import Foundation
import StoreCore

extension SQLiteStore {
    /// Runs a batch request in SQL, in one write transaction that also records its history:
    /// inserts through one prepared statement (upserts with `ON CONFLICT … DO UPDATE`), updates
    /// and deletes as set-based statements (see `BatchInsertWriter`, `BatchUpdateWriter`,
    /// `BatchDeleteWriter`).
    public func execute(_ request: StoreBatchRequest) throws -> StoreBatchResult {
        guard !isReadOnly else { throw StoreError(.readOnly, url: url, "the store is read-only; nothing was written") }
        var files = FileChanges()
        let result: StoreBatchResult
        do {
            result = try sqlite {
                try pool.write { connection in
                    try connection.transaction {
                        let history = isHistoryTrackingEnabled
                            ? try HistoryWriter(connection: connection, schema: schema, model: model, author: request.transactionAuthor, contextName: request.contextName)
                            : nil
                        let result: StoreBatchResult
                        switch request.operation {
                        case .insert(let insert):
                            var writer = BatchInsertWriter(store: self, connection: connection, history: history, wantsObjectIDs: request.wantsObjectIDs)
                            result = try writer.write(insert)
                            files = writer.files
                        case .update(let update):
                            result = try BatchUpdateWriter(store: self, connection: connection, history: history, wantsObjectIDs: request.wantsObjectIDs).write(update)
                        case .delete(let target):
                            var writer = BatchDeleteWriter(store: self, connection: connection, history: history, wantsObjectIDs: request.wantsObjectIDs)
                            result = try writer.delete(target)
                            files = writer.files
                        }
                        try history?.finish()
                        return result
                    }
                }
            }
        } catch {
            for file in files.written { try? FileManager.default.removeItem(at: file) }
            throw error
        }
        for file in files.obsolete { try? FileManager.default.removeItem(at: file) }
        prefetched.removeAll()
        return result
    }
}
