import Foundation
import StoreCore

extension SQLiteStore {
    /// Takes keys from the `Z_PRIMARYKEY` rows in a write transaction of its own; throws `readOnly` for a
    /// read-only store.
    public func newObjectIDs(forEntityNames entityNames: [String]) throws -> [ManagedObjectID] {
        guard !isReadOnly else { throw StoreError(.readOnly, url: url, "the store is read-only") }
        return try sqlite {
            try pool.write { connection in
                try connection.transaction { try allocateObjectIDs(forEntityNames: entityNames, on: connection) }
            }
        }
    }

    /// Writes the change set in one SQLite transaction (with its history rows when history tracking is on);
    /// `Z_OPT` conflicts throw `MergeConflictError`, a broken unique constraint `uniquenessConstraint`.
    public func save(_ changes: StoreChangeSet) throws {
        _ = try save(newObjectsOf: []) { _ in changes }
    }

    /// Allocates the new objects' keys and writes the changes in one write transaction: a save
    /// that fails spends no keys.
    public func save(
        newObjectsOf entityNames: [String], _ makeChanges: ([ManagedObjectID]) throws -> StoreChangeSet
    ) throws -> StoreChangeSet {
        guard !isReadOnly else { throw StoreError(.readOnly, url: url, "the store is read-only; nothing was saved") }
        var files = FileChanges()
        let saved: StoreChangeSet
        do {
            saved = try sqlite {
                try pool.write { connection in
                    try connection.transaction {
                        let changes = try makeChanges(allocateObjectIDs(forEntityNames: entityNames, on: connection))
                        for snapshot in changes.inserted + changes.updated + changes.deleted where snapshot.objectID.storeIdentifier != identifier {
                            throw StoreError(.wrongStore, objectID: snapshot.objectID, "the change names an object of another store")
                        }
                        var writer = ChangeWriter(store: self, connection: connection, files: files)
                        if isHistoryTrackingEnabled {
                            writer.history = try HistoryWriter(
                                connection: connection, schema: schema, model: model, author: changes.transactionAuthor, contextName: changes.contextName)
                        }
                        defer { files = writer.files }
                        try writer.write(changes)
                        return changes
                    }
                }
            }
        } catch {
            for file in files.written { try? FileManager.default.removeItem(at: file) }
            throw error
        }
        for file in files.obsolete { try? FileManager.default.removeItem(at: file) }
        return saved
    }

    /// Takes keys for new objects from `Z_PRIMARYKEY`, inside the caller's write transaction.
    private func allocateObjectIDs(forEntityNames entityNames: [String], on connection: SQLiteConnection) throws -> [ManagedObjectID] {
        try schema.newObjectIDs(forEntityNames: entityNames, rows: rows, url: url) { root, count in
            guard case .integer(let maximum)? = try connection.scalar(
                "UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + ? WHERE Z_ENT = ? RETURNING Z_MAX", [.integer(Int64(count)), .integer(root)])
            else { throw StoreError(.corrupt, url: url, "Z_PRIMARYKEY has no row for entity number \(root)") }
            return maximum
        }
    }
}

/// External files a save wrote (removed if it fails) and made obsolete (removed once it commits).
struct FileChanges {
    var written: [URL] = []
    var obsolete: [URL] = []
}
