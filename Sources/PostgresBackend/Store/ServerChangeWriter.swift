#if Postgres  // the PostgreSQL store is built only with the Postgres package trait (Package.swift)
import Foundation
import StoreCore
import StoreSQL

/// Writes one change set inside a save's transaction: deletes, inserts (many rows per
/// statement), updates with optimistic locking on `Z_OPT`, then to-many relationships (join-table
/// rows and `Z_FOK_` order values). Throws — leaving the transaction to roll back — on a version
/// conflict or a broken uniqueness constraint.
///
/// Under PostgreSQL's READ COMMITTED, an `UPDATE … WHERE Z_PK = $1 AND Z_OPT = $2` that meets a
/// row another transaction is changing waits for it, then re-checks `Z_OPT` on the committed
/// row: a concurrent writer's change is always seen as a conflict, never overwritten.
struct ServerChangeWriter {
    let store: PostgresStore
    let connection: ServerConnection
    private var conflicts: [MergeConflict] = []

    init(store: PostgresStore, connection: ServerConnection) {
        self.store = store
        self.connection = connection
    }

    private var schema: SQLSchema { store.schema }

    mutating func write(_ changes: StoreChangeSet) throws {
        var record = store.isHistoryTrackingEnabled ? HistoryRecord(author: changes.transactionAuthor, contextName: changes.contextName) : nil
        for snapshot in changes.deleted { try delete(snapshot, record: &record) }
        try insert(changes.inserted)
        for snapshot in changes.updated { try update(snapshot) }
        if !conflicts.isEmpty { throw MergeConflictError(conflicts: conflicts) }
        for snapshot in changes.inserted where snapshot.holdsToMany { try writeToMany(snapshot, isNew: true) }
        for snapshot in changes.updated where snapshot.holdsToMany { try writeToMany(snapshot, isNew: false) }
        if var record {
            for snapshot in changes.inserted { record.changes.append((snapshot.objectID, .insert, nil, nil)) }
            for snapshot in changes.updated {
                record.changes.append((snapshot.objectID, .update, Set(snapshot.heldProperties.map { snapshot.entity.properties[$0].name }), nil))
            }
            if !record.changes.isEmpty {
                try HistoryTables.write(record, schema: schema, on: connection, lockName: store.schemaName)
            }
        }
    }

    // MARK: Rows

    /// Inserts rows table by table, as many per statement as PostgreSQL's parameter limit allows.
    private mutating func insert(_ snapshots: [StoreSnapshot]) throws {
        var byTable: [Int64: [StoreSnapshot]] = [:]
        var order: [Int64] = []
        for snapshot in snapshots {
            let table = try schema.table(for: snapshot.objectID.entityName)
            if byTable[table.number] == nil { order.append(table.number) }
            byTable[table.number, default: []].append(snapshot)
        }
        for number in order {
            guard let group = byTable[number], let first = group.first else { continue }
            let table = try schema.table(for: first.objectID.entityName)
            let width = table.columns.count + 2
            let rowsPerStatement = max(1, min(1000, 65_000 / width))
            for start in stride(from: 0, to: group.count, by: rowsPerStatement) {
                let chunk = group[start..<min(start + rowsPerStatement, group.count)]
                var bindings: [SQLValue] = []
                bindings.reserveCapacity(chunk.count * width)
                for snapshot in chunk {
                    bindings.append(.integer(try primaryKey(snapshot.objectID)))
                    bindings.append(.integer(table.number))
                    for column in table.columns { bindings.append(PostgresDialect.encode(snapshot[column.propertyIndex])) }
                }
                do {
                    try connection.run(store.insertStatement(for: table, rows: chunk.count), bindings)
                } catch let error as PostgresServerError where error.isUniqueViolation {
                    throw UniquenessViolation(snapshots: Array(chunk), cause: error)
                }
            }
        }
    }

    /// `INSERT INTO t (Z_PK, Z_ENT, Z_OPT, …) VALUES ($1, $2, 1, …), ($n, …)`.
    static func insertSQL(_ table: EntityTable, rows: Int) -> String {
        let names = ["Z_PK", "Z_ENT", "Z_OPT"] + table.columns.map(\.name)
        let width = table.columns.count + 2
        var tuples: [String] = []
        tuples.reserveCapacity(rows)
        for row in 0..<rows {
            let base = row * width
            var values = ["$\(base + 1)", "$\(base + 2)", "1"]
            for (offset, column) in table.columns.enumerated() {
                values.append("$\(base + offset + 3)" + (column.declaredType == "DECIMAL" ? "::NUMERIC" : ""))
            }
            tuples.append("(" + values.joined(separator: ", ") + ")")
        }
        return "INSERT INTO \(table.table) (\(names.joined(separator: ", "))) VALUES " + tuples.joined(separator: ", ")
    }

    private mutating func update(_ snapshot: StoreSnapshot) throws {
        let table = try schema.table(for: snapshot.objectID.entityName)
        let key = try primaryKey(snapshot.objectID)
        var assignments = ["Z_OPT = Z_OPT + 1"]
        var values: [SQLValue] = []
        for column in table.columns where snapshot.heldProperties.contains(column.propertyIndex) {
            values.append(PostgresDialect.encode(snapshot[column.propertyIndex]))
            assignments.append("\(column.name) = $\(values.count)" + (column.declaredType == "DECIMAL" ? "::NUMERIC" : ""))
        }
        let sql = "UPDATE \(table.table) SET \(assignments.joined(separator: ", ")) WHERE Z_PK = $\(values.count + 1) AND Z_OPT = $\(values.count + 2)"
        let changed: Int
        do {
            changed = try connection.run(sql, values + [.integer(key), .integer(snapshot.version)])
        } catch let error as PostgresServerError where error.isUniqueViolation {
            throw UniquenessViolation(snapshots: [snapshot], cause: error)
        }
        if changed == 0 { try noteConflict(snapshot) }
    }

    private mutating func delete(_ snapshot: StoreSnapshot, record: inout HistoryRecord?) throws {
        let table = try schema.table(for: snapshot.objectID.entityName)
        let key = try primaryKey(snapshot.objectID)
        if record != nil, let current = try store.snapshot(in: connection, key: key, entity: snapshot.objectID.entityName),
            current.version == snapshot.version
        {
            record?.changes.append((snapshot.objectID, .delete, nil, HistoryRecord.tombstone(of: current, model: store.model)))
        }
        let deleted = try connection.run("DELETE FROM \(table.table) WHERE Z_PK = $1 AND Z_OPT = $2", [.integer(key), .integer(snapshot.version)])
        if deleted == 0 {
            try noteConflict(snapshot)
            return
        }
        for (name, storage) in table.toMany {
            if case .joinTable(_, let joinTable, let ownerColumn, _, _) = storage {
                try connection.run("DELETE FROM \(joinTable) WHERE \(ownerColumn) = $1", [.integer(key)])
            } else if case .foreignKey(_, let destinationTable, let column, _) = storage,
                store.model.entitiesByName[snapshot.objectID.entityName]?.relationshipsByName[name]?.inverseName == nil
            {
                try connection.run("UPDATE \(destinationTable) SET \(column) = NULL WHERE \(column) = $1", [.integer(key)])
            }
        }
    }

    private mutating func noteConflict(_ snapshot: StoreSnapshot) throws {
        let current = try store.snapshot(in: connection, key: try primaryKey(snapshot.objectID), entity: snapshot.objectID.entityName)
        conflicts.append(MergeConflict(
            objectID: snapshot.objectID, expectedVersion: snapshot.version, storeVersion: current?.version ?? 0, storeSnapshot: current))
    }

    // MARK: To-many relationships

    private mutating func writeToMany(_ snapshot: StoreSnapshot, isNew: Bool) throws {
        let table = try schema.table(for: snapshot.objectID.entityName)
        let key = try primaryKey(snapshot.objectID)
        for (index, members) in snapshot.toManyRelationships {
            let name = snapshot.entity.properties[index].name
            guard let storage = table.toMany[name] else { continue }
            let keys = try members.map(primaryKey)
            switch storage {
            case .foreignKey(_, let destinationTable, let column, let orderColumn):
                // With an inverse, the members' foreign keys were written with their rows; without
                // one, the owner sets them here (and clears those of members it no longer holds).
                if store.model.entitiesByName[snapshot.objectID.entityName]?.relationshipsByName[name]?.inverseName == nil {
                    if !isNew { try connection.run("UPDATE \(destinationTable) SET \(column) = NULL WHERE \(column) = $1", [.integer(key)]) }
                    if !keys.isEmpty {
                        try connection.run("UPDATE \(destinationTable) SET \(column) = $1 WHERE Z_PK = ANY($2::BIGINT[])", [.integer(key), PostgresStore.keyArray(keys)])
                    }
                }
                guard let orderColumn, !keys.isEmpty else { continue }
                try connection.run(
                    "UPDATE \(destinationTable) t SET \(orderColumn) = m.position * 1024 FROM unnest($1::BIGINT[]) WITH ORDINALITY AS m(key, position) WHERE t.Z_PK = m.key",
                    [PostgresStore.keyArray(keys)])
            case .joinTable(_, let joinTable, let ownerColumn, let memberColumn, let orderColumn):
                if !isNew {
                    try connection.run(
                        "DELETE FROM \(joinTable) WHERE \(ownerColumn) = $1 AND NOT (\(memberColumn) = ANY($2::BIGINT[]))", [.integer(key), PostgresStore.keyArray(keys)])
                }
                guard !keys.isEmpty else { continue }
                try connection.run(
                    "INSERT INTO \(joinTable) (\(ownerColumn), \(memberColumn)) SELECT $1, m FROM unnest($2::BIGINT[]) AS m ON CONFLICT DO NOTHING",
                    [.integer(key), PostgresStore.keyArray(keys)])
                if let orderColumn {
                    try connection.run(
                        "UPDATE \(joinTable) j SET \(orderColumn) = m.position * 1024 FROM unnest($2::BIGINT[]) WITH ORDINALITY AS m(key, position) WHERE j.\(ownerColumn) = $1 AND j.\(memberColumn) = m.key",
                        [.integer(key), PostgresStore.keyArray(keys)])
                }
            }
        }
    }

    private func primaryKey(_ id: ManagedObjectID) throws -> Int64 {
        guard let key = id.primaryKey, !id.isTemporaryID else {
            throw StoreError(.wrongStore, objectID: id, "the object has no permanent ID in this store")
        }
        return key
    }
}

/// A uniqueness constraint the server refused; the save rolls back, then names the object
/// already holding the values (``PostgresStore/uniquenessError(_:)``).
struct UniquenessViolation: Error {
    let snapshots: [StoreSnapshot]
    let cause: PostgresServerError
}
#endif
