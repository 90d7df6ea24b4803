import Foundation
import StoreCore

extension SQLStore {
    /// Takes keys for new objects from `Z_PRIMARYKEY`, inside the caller's write transaction (the
    /// rows stay locked until it ends, so concurrent savers — in any process — never get the same key).
    package func allocateObjectIDs(forEntityNames entityNames: [String], on connection: Connection) throws -> [ManagedObjectID] {
        let sql = "UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + \(dialect.parameter(1, declaredType: nil)) WHERE Z_ENT = \(dialect.parameter(2, declaredType: nil)) RETURNING Z_MAX"
        return try schema.newObjectIDs(forEntityNames: entityNames, rows: rows, url: url) { root, count in
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
