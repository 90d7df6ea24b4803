#if Postgres  // the PostgreSQL store is built only with the Postgres package trait (Package.swift)
import Foundation
import StoreCore
import StoreSQL

extension PostgresStore {
    /// Takes keys from the `Z_PRIMARYKEY` rows in a transaction of its own (rows locked until it commits, so
    /// no other process gets the same keys); throws `readOnly` for a read-only store.
    public func newObjectIDs(forEntityNames entityNames: [String]) throws -> [ManagedObjectID] {
        guard !isReadOnly else { throw StoreError(.readOnly, url: url, "the store is read-only") }
        return try write { try allocateObjectIDs(forEntityNames: entityNames, on: $0) }
    }

    /// Writes the change set in one transaction, with history rows when tracking is on and a `NOTIFY`;
    /// `Z_OPT` conflicts throw `MergeConflictError`, a broken unique constraint `uniquenessConstraint`.
    public func save(_ changes: StoreChangeSet) throws {
        _ = try save(newObjectsOf: []) { _ in changes }
    }

    /// Allocates the new objects' keys and writes the changes (``StoreSQL/SQLChangeWriter``) in one
    /// transaction: a save that fails spends no keys, and keys taken by a concurrent save (another
    /// process's) wait for it.
    public func save(
        newObjectsOf entityNames: [String], _ makeChanges: ([ManagedObjectID]) throws -> StoreChangeSet
    ) throws -> StoreChangeSet {
        guard !isReadOnly else { throw StoreError(.readOnly, url: url, "the store is read-only; nothing was saved") }
        do {
            return try write { connection in
                let changes = try makeChanges(allocateObjectIDs(forEntityNames: entityNames, on: connection))
                var writer = SQLChangeWriter(store: self, connection: connection)
                if isHistoryTrackingEnabled {
                    writer.history = try SQLHistoryWriter(store: self, connection: connection, author: changes.transactionAuthor, contextName: changes.contextName)
                }
                try writer.write(changes)
                if !(changes.inserted.isEmpty && changes.updated.isEmpty && changes.deleted.isEmpty) {
                    try notifyCommit(on: connection)
                }
                return changes
            }
        } catch let violation as UniquenessViolation {
            throw try server { try uniquenessError(violation) }
        }
    }
}
#endif
