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

    /// Allocates the new objects' keys and writes the changes in one transaction: a save that
    /// fails spends no keys, and keys taken by a concurrent save (another process's) wait for it.
    public func save(
        newObjectsOf entityNames: [String], _ makeChanges: ([ManagedObjectID]) throws -> StoreChangeSet
    ) throws -> StoreChangeSet {
        guard !isReadOnly else { throw StoreError(.readOnly, url: url, "the store is read-only; nothing was saved") }
        do {
            let saved = try write { connection in
                let changes = try makeChanges(allocateObjectIDs(forEntityNames: entityNames, on: connection))
                for snapshot in changes.inserted + changes.updated + changes.deleted where snapshot.objectID.storeIdentifier != identifier {
                    throw StoreError(.wrongStore, objectID: snapshot.objectID, "the change names an object of another store")
                }
                var writer = ServerChangeWriter(store: self, connection: connection)
                try writer.write(changes)
                if !(changes.inserted.isEmpty && changes.updated.isEmpty && changes.deleted.isEmpty) {
                    try notifyCommit(on: connection)
                }
                return changes
            }
            return saved
        } catch let violation as UniquenessViolation {
            throw (try? uniquenessError(violation)) ?? ObjectValidationError(
                .uniquenessConstraint, objectID: violation.snapshots.first?.objectID, entity: violation.snapshots.first?.objectID.entityName ?? "", key: nil,
                "a uniqueness constraint is broken; nothing was saved (\(violation.cause))")
        }
    }

    /// Takes keys for new objects from `Z_PRIMARYKEY`, inside the caller's transaction: the rows
    /// stay locked until it ends, so concurrent savers — in any process — never get the same key.
    func allocateObjectIDs(forEntityNames entityNames: [String], on connection: ServerConnection) throws -> [ManagedObjectID] {
        try schema.newObjectIDs(forEntityNames: entityNames, rows: rows, url: url) { root, count in
            guard case .integer(let maximum)? = try connection.scalar(
                "UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + $1 WHERE Z_ENT = $2 RETURNING Z_MAX", [.integer(Int64(count)), .integer(root)])
            else { throw StoreError(.corrupt, url: url, "Z_PRIMARYKEY has no row for entity number \(root)") }
            return maximum
        }
    }

    /// The error for a broken uniqueness constraint, naming the object already holding the values
    /// (read after the failed transaction rolled back).
    func uniquenessError(_ violation: UniquenessViolation) throws -> Error? {
        try read { connection in
            for snapshot in violation.snapshots {
                let table = try schema.table(for: snapshot.objectID.entityName)
                guard let key = snapshot.objectID.primaryKey else { continue }
                var entity = model.entitiesByName[snapshot.objectID.entityName]
                while let owner = entity {
                    for constraint in owner.uniquenessConstraints {
                        let columns = constraint.compactMap { table.column(for: $0) }
                        guard columns.count == constraint.count else { continue }
                        var values: [SQLValue] = []
                        for column in columns {
                            if snapshot.heldProperties.contains(column.propertyIndex) {
                                values.append(PostgresDialect.encode(snapshot[column.propertyIndex]))
                            } else {
                                values.append(try connection.scalar("SELECT \(column.name) FROM \(table.table) WHERE Z_PK = $1", [.integer(key)]) ?? .null)
                            }
                        }
                        let test = columns.enumerated().map { "\($1.name) IS NOT DISTINCT FROM $\($0 + 1)\($1.declaredType == "DECIMAL" ? "::NUMERIC" : "")" }
                        var other = try connection.query(
                            "SELECT Z_PK, Z_ENT FROM \(table.table) WHERE \(test.joined(separator: " AND ")) AND Z_PK != $\(values.count + 1) LIMIT 1",
                            values + [.integer(key)]
                        ).first.flatMap { rows.objectID(from: $0) }
                        // Or another new object of the same save.
                        if other == nil {
                            other = violation.snapshots.first { candidate in
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
            }
            return nil
        }
    }
}
#endif
