#if Postgres  // the PostgreSQL store is built only with the Postgres package trait (Package.swift)
import Foundation
import StoreCore
import StoreSQL

extension PostgresStore {
    /// Runs a batch request in SQL, in one transaction that also records its history and announces
    /// the commit: inserts streamed with `COPY` (row by row with `ON CONFLICT` when upserting),
    /// updates as one `UPDATE`, deletes with their delete rules applied in SQL (``StoreSQL/SQLBatchUpdater``,
    /// ``StoreSQL/SQLBatchDeleter``).
    public func execute(_ request: StoreBatchRequest) throws -> StoreBatchResult {
        guard !isReadOnly else { throw StoreError(.readOnly, url: url, "the store is read-only; nothing was written") }
        let result = try write { connection -> StoreBatchResult in
            var history = isHistoryTrackingEnabled
                ? try SQLHistoryWriter(store: self, connection: connection, author: request.transactionAuthor, contextName: request.contextName)
                : nil
            let result: StoreBatchResult
            switch request.operation {
            case .insert(let insert):
                var writer = ServerBatchInsert(store: self, connection: connection, history: history, wantsObjectIDs: request.wantsObjectIDs)
                result = try writer.write(insert)
                history = writer.history
            case .update(let update):
                var updater = SQLBatchUpdater(store: self, connection: connection, history: history, wantsObjectIDs: request.wantsObjectIDs)
                result = try updater.write(update)
                history = updater.history
            case .delete(let target):
                var deleter = SQLBatchDeleter(store: self, connection: connection, history: history, wantsObjectIDs: request.wantsObjectIDs)
                result = try deleter.delete(target)
                history = deleter.history
            }
            try history?.finish()
            if result.count > 0 { try notifyCommit(on: connection) }
            return result
        }
        prefetched.removeAll()
        return result
    }
}
#endif
