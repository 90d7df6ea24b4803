import Foundation
import StoreCore

/// Saving and batch requests, for every SQL store: these are the stores' `PersistentStore` methods.
extension SQLStore {
    /// Writes the metadata to `Z_METADATA` in one write transaction, keeping the store's own UUID and type
    /// (and old plist keys it cannot represent); throws `readOnly` for a read-only store.
    public func setMetadata(_ metadata: StoreMetadata) throws {
        guard !isReadOnly else { throw StoreError(.readOnly, url: url, "the store is read-only") }
        var updated = metadata
        updated.storeUUID = identifier
        updated.storeType = type.rawValue
        try write { try writeMetadata(updated, on: $0) }
        didWriteMetadata(updated)
    }

    /// Takes keys from the `Z_PRIMARYKEY` rows in a write transaction of its own; throws `readOnly` for a
    /// read-only store.
    public func newObjectIDs(forEntityNames entityNames: [String]) throws -> [ManagedObjectID] {
        guard !isReadOnly else { throw StoreError(.readOnly, url: url, "the store is read-only") }
        return try write { Array(try allocateObjectIDs(for: NewObjectRun.runs(of: entityNames), on: $0)) }
    }

    /// Writes the change set in one transaction, with its history rows when tracking is on;
    /// `Z_OPT` conflicts throw `MergeConflictError`, a broken unique constraint `uniquenessConstraint`.
    public func save(_ changes: StoreChangeSet) throws {
        _ = try save(newObjectRuns: []) { _ in changes }
    }

    /// Allocates the new objects' keys and writes the changes (``SQLChangeWriter``) in one write
    /// transaction, announced to other processes (``announceCommit(on:)``): a save that fails
    /// spends no keys, and keys taken by a concurrent save (another process's) wait for it.
    public func save(
        newObjectsOf entityNames: [String], _ makeChanges: ([ManagedObjectID]) throws -> StoreChangeSet
    ) throws -> StoreChangeSet {
        try save(newObjectRuns: NewObjectRun.runs(of: entityNames)) { try makeChanges(Array($0)) }
    }

    /// ``save(newObjectsOf:_:)`` for the names the runs repeat, with the IDs as a compact list
    /// (``NewObjectRunSaving``).
    package func save(
        newObjectRuns runs: [NewObjectRun], _ makeChanges: (CompactObjectIDList) throws -> StoreChangeSet
    ) throws -> StoreChangeSet {
        guard !isReadOnly else { throw StoreError(.readOnly, url: url, "the store is read-only; nothing was saved") }
        let files = SQLWriteFiles()
        do {
            let saved = try write { connection in
                let changes = try makeChanges(allocateObjectIDs(for: runs, on: connection))
                var writer = SQLChangeWriter(store: self, connection: connection)
                if isHistoryTrackingEnabled {
                    writer.history = try SQLHistoryWriter(store: self, connection: connection, author: changes.transactionAuthor, contextName: changes.contextName)
                }
                prepare(&writer, on: connection, files: files)
                try writer.write(changes)
                if !(changes.inserted.isEmpty && changes.updated.isEmpty && changes.deleted.isEmpty) { try announceCommit(on: connection) }
                return changes
            }
            files.finish(committed: true)
            return saved
        } catch let violation as UniquenessViolation {
            files.finish(committed: false)
            throw try uniquenessError(violation)
        } catch {
            files.finish(committed: false)
            throw error
        }
    }

    /// Runs a batch request in SQL, in one write transaction that also records its history and is
    /// announced to other processes: inserts by the driver (``insert(_:history:wantsObjectIDs:on:files:)``),
    /// updates as one `UPDATE` (``SQLBatchUpdater``), deletes with their delete rules applied in
    /// SQL (``SQLBatchDeleter``).
    public func execute(_ request: StoreBatchRequest) throws -> StoreBatchResult {
        guard !isReadOnly else { throw StoreError(.readOnly, url: url, "the store is read-only; nothing was written") }
        let files = SQLWriteFiles()
        let result: StoreBatchResult
        do {
            result = try write { connection in
                var history = isHistoryTrackingEnabled
                    ? try SQLHistoryWriter(store: self, connection: connection, author: request.transactionAuthor, contextName: request.contextName)
                    : nil
                let result: StoreBatchResult
                switch request.operation {
                case .insert(let insert):
                    result = try self.insert(insert, history: &history, wantsObjectIDs: request.wantsObjectIDs, on: connection, files: files)
                case .update(let update):
                    var updater = SQLBatchUpdater(store: self, connection: connection, history: history, wantsObjectIDs: request.wantsObjectIDs)
                    result = try updater.write(update)
                    history = updater.history
                case .delete(let target):
                    var deleter = SQLBatchDeleter(store: self, connection: connection, history: history, wantsObjectIDs: request.wantsObjectIDs)
                    prepare(&deleter, on: connection, files: files)
                    result = try deleter.delete(target)
                    history = deleter.history
                }
                try history?.finish()
                if result.count > 0 { try announceCommit(on: connection) }
                return result
            }
        } catch {
            files.finish(committed: false)
            throw error
        }
        files.finish(committed: true)
        prefetched.removeAll()
        return result
    }

    /// Takes keys for new objects from `Z_PRIMARYKEY`, inside the caller's write transaction (the
    /// rows stay locked until it ends, so concurrent savers — in any process — never get the same key).
    package func allocateObjectIDs(for runs: [NewObjectRun], on connection: Connection) throws -> CompactObjectIDList {
        let sql = "UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + \(dialect.parameter(1, declaredType: nil)) WHERE Z_ENT = \(dialect.parameter(2, declaredType: nil)) RETURNING Z_MAX"
        return try schema.newObjectIDs(for: runs, rows: rows, url: url) { root, count in
            guard case .integer(let maximum)? = try connection.scalar(sql, [.integer(Int64(count)), .integer(root)])
            else { throw StoreError(.corrupt, url: url, "Z_PRIMARYKEY has no row for entity number \(root)") }
            return maximum
        }
    }

    /// The error for a broken uniqueness constraint, naming the object already holding the values
    /// (read after the failed transaction rolled back): a stored object, or another new one of the
    /// same save.
    package func uniquenessError(_ violation: UniquenessViolation) throws -> any Error {
        let found = try read { connection -> (any Error)? in
            for snapshot in violation.snapshots {
                if let error = try uniquenessError(of: snapshot, among: violation.snapshots, on: connection) { return error }
            }
            return nil
        }
        return found ?? ObjectValidationError(
            .uniquenessConstraint, objectID: violation.snapshots.first?.objectID, entity: violation.snapshots.first?.objectID.entityName ?? "", key: nil,
            "a uniqueness constraint is broken; nothing was saved (\(violation.cause))")
    }

    private func uniquenessError(of snapshot: StoreSnapshot, among saved: [StoreSnapshot], on connection: Connection) throws -> (any Error)? {
        let table = try schema.table(for: snapshot.objectID.entityName)
        guard let key = snapshot.objectID.primaryKey else { return nil }
        var entity = model.entitiesByName[snapshot.objectID.entityName]
        while let owner = entity {
            for constraint in owner.uniquenessConstraints {
                let columns = constraint.compactMap { table.column(for: $0) }
                guard columns.count == constraint.count else { continue }
                var values: [SQLValue] = []
                for column in columns {
                    if snapshot.heldProperties.contains(column.propertyIndex) {
                        values.append(dialect.encode(snapshot[column.propertyIndex]))
                    } else {
                        values.append(try connection.scalar(
                            "SELECT \(column.name) FROM \(table.table) WHERE Z_PK = \(dialect.parameter(1, declaredType: nil))", [.integer(key)]) ?? .null)
                    }
                }
                let test = columns.enumerated().map { dialect.isSame($1.name, dialect.parameter($0 + 1, declaredType: $1.declaredType), negated: false) }
                let rows = rows
                var other = try connection.collect(
                    "SELECT Z_PK, Z_ENT FROM \(table.table) WHERE \(test.joined(separator: " AND ")) AND Z_PK != \(dialect.parameter(values.count + 1, declaredType: nil)) LIMIT 1",
                    values + [.integer(key)]
                ) { rows.objectID(from: $0) }.first
                if other == nil {
                    other = saved.first { candidate in
                        candidate.objectID != snapshot.objectID && candidate.objectID.entityName == snapshot.objectID.entityName
                            && columns.allSatisfy { candidate[$0.propertyIndex] == snapshot[$0.propertyIndex] }
                    }?.objectID
                }
                if let other {
                    return ObjectValidationError(
                        .uniquenessConstraint, objectID: snapshot.objectID, entity: owner.name, key: constraint.joined(separator: ","),
                        "another \(owner.name) (\(other)) already has the same \(constraint.joined(separator: ", ")); nothing was saved")
                }
            }
            entity = owner.superentity
        }
        return nil
    }
}
