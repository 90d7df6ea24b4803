import Foundation
import StoreCore
import StoreSQL

extension SQLiteStore {
    /// Runs a batch request in SQL, in one write transaction that also records its history:
    /// inserts through one prepared statement (upserts with `ON CONFLICT … DO UPDATE`), updates
    /// and deletes as set-based statements (see `BatchInsertWriter`, ``StoreSQL/SQLBatchUpdater``,
    /// ``StoreSQL/SQLBatchDeleter``).
    public func execute(_ request: StoreBatchRequest) throws -> StoreBatchResult {
        guard !isReadOnly else { throw StoreError(.readOnly, url: url, "the store is read-only; nothing was written") }
        let files = FileChanges()
        let result: StoreBatchResult
        do {
            result = try write { connection in
                var history = isHistoryTrackingEnabled
                    ? try SQLHistoryWriter(store: self, connection: connection, author: request.transactionAuthor, contextName: request.contextName)
                    : nil
                let result: StoreBatchResult
                switch request.operation {
                case .insert(let insert):
                    var writer = BatchInsertWriter(store: self, connection: connection, history: history, files: files, wantsObjectIDs: request.wantsObjectIDs)
                    result = try writer.write(insert)
                    history = writer.history
                case .update(let update):
                    var updater = SQLBatchUpdater(store: self, connection: connection, history: history, wantsObjectIDs: request.wantsObjectIDs)
                    result = try updater.write(update)
                    history = updater.history
                case .delete(let target):
                    var deleter = SQLBatchDeleter(store: self, connection: connection, history: history, wantsObjectIDs: request.wantsObjectIDs)
                    if externalStorage != nil {
                        deleter.willDeleteRows = { root, condition in try self.noteExternalFiles(of: root, where: condition, on: connection, files: files) }
                    }
                    result = try deleter.delete(target)
                    history = deleter.history
                }
                try history?.finish()
                return result
            }
        } catch {
            for file in files.written { try? FileManager.default.removeItem(at: file) }
            throw error
        }
        for file in files.obsolete { try? FileManager.default.removeItem(at: file) }
        prefetched.removeAll()
        return result
    }

    /// Notes the files of external-storage attributes of the rows of `root` that `condition`
    /// selects, removed once the delete commits.
    private func noteExternalFiles(of root: EntityTable, where condition: String, on connection: SQLiteConnection, files: FileChanges) throws {
        guard let storage = externalStorage else { return }
        var seen: Set<String> = []
        for name in root.entityNumbers.compactMap({ schema.entityNames[$0] }) {
            guard let table = schema.tables[name] else { continue }
            for column in table.columns where seen.insert(column.name).inserted {
                guard case .attribute(_, true) = column.kind else { continue }
                try connection.query("SELECT \(column.name) FROM \(root.table) WHERE \(condition) AND \(column.name) IS NOT NULL") { row in
                    if let data = row.data(at: 0), let file = storage.file(for: data) { files.obsolete.append(file) }
                }
            }
        }
    }
}
