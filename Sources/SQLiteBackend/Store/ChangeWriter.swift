import Foundation
import StoreCore
import StoreSQL

/// Writes one change set inside the writer's transaction: deletes, inserts, updates with
/// optimistic locking on `Z_OPT`, then to-many relationships (join-table rows and `Z_FOK_`
/// order values). Throws — leaving the transaction to roll back — on a version conflict or a
/// broken uniqueness constraint.
struct ChangeWriter {
    let store: SQLiteStore
    let connection: SQLiteConnection
    var files: FileChanges
    /// Records the save in persistent history, when the store keeps it.
    var history: HistoryWriter?
    private var conflicts: [MergeConflict] = []
    /// Each entity's INSERT statement, looked up once per save rather than once per row.
    private var insertStatements: [Int64: SQLiteStatement] = [:]

    init(store: SQLiteStore, connection: SQLiteConnection, files: FileChanges) {
        self.store = store
        self.connection = connection
        self.files = files
    }

    private var schema: SQLSchema { store.schema }

    mutating func write(_ changes: StoreChangeSet) throws {
        for snapshot in changes.deleted { try delete(snapshot) }
        for snapshot in changes.inserted { try insert(snapshot) }
        for snapshot in changes.updated { try update(snapshot) }
        if !conflicts.isEmpty { throw MergeConflictError(conflicts: conflicts) }
        for snapshot in changes.inserted where snapshot.holdsToMany { try writeToMany(snapshot, isNew: true) }
        for snapshot in changes.updated where snapshot.holdsToMany { try writeToMany(snapshot, isNew: false) }
        try history?.finish()
    }

    // MARK: Rows

    private mutating func insert(_ snapshot: StoreSnapshot) throws {
        let table = try schema.table(for: snapshot.objectID.entityName)
        let key = try primaryKey(snapshot.objectID)
        let columns = table.columns
        let sql = store.insertSQL[table.number] ?? table.insertSQL
        let statement: SQLiteStatement
        if let cached = insertStatements[table.number] {
            statement = cached
        } else {
            statement = try connection.cachedStatement(sql)
            insertStatements[table.number] = statement
        }
        statement.reset()
        try statement.bind(.integer(key), at: 1)
        try statement.bind(.integer(table.number), at: 2)
        for (offset, column) in columns.enumerated() {
            try statement.bind(try encode(snapshot[column.propertyIndex], for: column), at: offset + 3)
        }
        connection.log.statement(sql, [])
        do {
            while try statement.step() {}
        } catch let error as SQLiteError where error.isUniqueViolation {
            statement.reset()
            throw try uniquenessError(for: snapshot, table: table, cause: error)
        }
        statement.reset()
        try history?.record(.insert, entityNumber: table.number, key: key)
    }

    private mutating func update(_ snapshot: StoreSnapshot) throws {
        let table = try schema.table(for: snapshot.objectID.entityName)
        let key = try primaryKey(snapshot.objectID)
        var assignments = ["Z_OPT = Z_OPT + 1"]
        var values: [SQLValue] = []
        for column in table.columns where snapshot.heldProperties.contains(column.propertyIndex) {
            let value = snapshot[column.propertyIndex]
            if case .attribute(_, true) = column.kind { try noteReplacedFile(of: column, key: key, table: table) }
            assignments.append("\(column.name) = ?")
            values.append(try encode(value, for: column))
        }
        let sql = "UPDATE \(table.table) SET \(assignments.joined(separator: ", ")) WHERE Z_PK = ? AND Z_OPT = ?"
        do {
            try connection.run(sql, values + [.integer(key), .integer(snapshot.version)])
        } catch let error as SQLiteError where error.isUniqueViolation {
            throw try uniquenessError(for: snapshot, table: table, cause: error)
        }
        if connection.changes == 0 { try noteConflict(snapshot, table: table) }
        try history?.record(.update, entityNumber: table.number, key: key, columns: snapshot.heldProperties.map { snapshot.entity.properties[$0].name })
    }

    private mutating func delete(_ snapshot: StoreSnapshot) throws {
        let table = try schema.table(for: snapshot.objectID.entityName)
        let key = try primaryKey(snapshot.objectID)
        for column in table.columns {
            if case .attribute(_, true) = column.kind { try noteReplacedFile(of: column, key: key, table: table) }
        }
        try history?.recordDeletions(from: table, where: "t0.Z_PK = ? AND t0.Z_OPT = ?", [.integer(key), .integer(snapshot.version)])
        try connection.run("DELETE FROM \(table.table) WHERE Z_PK = ? AND Z_OPT = ?", [.integer(key), .integer(snapshot.version)])
        if connection.changes == 0 {
            try noteConflict(snapshot, table: table)
            return
        }
        for (name, storage) in table.toMany {
            if case .joinTable(_, let joinTable, let ownerColumn, _, _) = storage {
                try connection.run("DELETE FROM \(joinTable) WHERE \(ownerColumn) = ?", [.integer(key)])
            } else if case .foreignKey(_, let destinationTable, let column, _) = storage,
                store.model.entitiesByName[snapshot.objectID.entityName]?.relationshipsByName[name]?.inverseName == nil
            {
                try connection.run("UPDATE \(destinationTable) SET \(column) = NULL WHERE \(column) = ?", [.integer(key)])
            }
        }
    }

    private mutating func noteConflict(_ snapshot: StoreSnapshot, table: EntityTable) throws {
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
                    if !isNew { try connection.run("UPDATE \(destinationTable) SET \(column) = NULL WHERE \(column) = ?", [.integer(key)]) }
                    for member in keys {
                        try connection.run("UPDATE \(destinationTable) SET \(column) = ? WHERE Z_PK = ?", [.integer(key), .integer(member)])
                    }
                }
                guard let orderColumn else { continue }
                for (index, member) in keys.enumerated() {
                    try connection.run("UPDATE \(destinationTable) SET \(orderColumn) = ? WHERE Z_PK = ?", [.integer(Int64(index + 1) * 1024), .integer(member)])
                }
            case .joinTable(_, let joinTable, let ownerColumn, let memberColumn, let orderColumn):
                var existing: Set<Int64> = []
                if !isNew {
                    try connection.query("SELECT \(memberColumn) FROM \(joinTable) WHERE \(ownerColumn) = ?", [.integer(key)]) { row in
                        existing.insert(row.int64(at: 0))
                    }
                }
                let wanted = Set(keys)
                for gone in existing.subtracting(wanted).sorted() {
                    try connection.run("DELETE FROM \(joinTable) WHERE \(ownerColumn) = ? AND \(memberColumn) = ?", [.integer(key), .integer(gone)])
                }
                for member in keys where !existing.contains(member) {
                    try connection.run("INSERT OR IGNORE INTO \(joinTable) (\(ownerColumn), \(memberColumn)) VALUES (?, ?)", [.integer(key), .integer(member)])
                }
                if let orderColumn {
                    for (index, member) in keys.enumerated() {
                        try connection.run(
                            "UPDATE \(joinTable) SET \(orderColumn) = ? WHERE \(ownerColumn) = ? AND \(memberColumn) = ?",
                            [.integer(Int64(index + 1) * 1024), .integer(key), .integer(member)])
                    }
                }
            }
        }
    }

    // MARK: Values

    private mutating func encode(_ value: StoreValue, for column: Column) throws -> SQLValue {
        try Self.encode(value, for: column, store: store, files: &files)
    }

    /// A value as its column stores it; large binary values of external-storage attributes go
    /// to files (recorded in `files`, so a failed transaction removes them).
    static func encode(_ value: StoreValue, for column: Column, store: SQLiteStore, files: inout FileChanges) throws -> SQLValue {
        if case .attribute(_, true) = column.kind, case .data(let data) = value {
            guard let storage = store.externalStorage else { return .blob(Data([ExternalBinaryStorage.inlineMarker]) + data) }
            return .blob(try storage.encode(data, written: &files.written))
        }
        return SQLiteValueCoder.encode(value)
    }

    private mutating func noteReplacedFile(of column: Column, key: Int64, table: EntityTable) throws {
        guard let storage = store.externalStorage else { return }
        if case .blob(let stored)? = try connection.scalar("SELECT \(column.name) FROM \(table.table) WHERE Z_PK = ?", [.integer(key)]),
            let file = storage.file(for: stored) {
            files.obsolete.append(file)
        }
    }

    private func primaryKey(_ id: ManagedObjectID) throws -> Int64 {
        guard let key = id.primaryKey, !id.isTemporaryID else {
            throw StoreError(.wrongStore, objectID: id, "the object has no permanent ID in this store")
        }
        return key
    }

    /// The error for a broken uniqueness constraint, naming the object already holding the values.
    private func uniquenessError(for snapshot: StoreSnapshot, table: EntityTable, cause: SQLiteError) throws -> Error {
        var entity = store.model.entitiesByName[snapshot.objectID.entityName]
        let key = try primaryKey(snapshot.objectID)
        while let owner = entity {
            for constraint in owner.uniquenessConstraints {
                let columns = constraint.compactMap { table.column(for: $0) }
                let values = try columns.map { try currentValue(of: $0, snapshot: snapshot, table: table) }
                let test = columns.map { "\($0.name) IS ?" }.joined(separator: " AND ")
                var other: ManagedObjectID?
                try connection.query("SELECT Z_PK, Z_ENT FROM \(table.table) WHERE \(test) AND Z_PK != ? LIMIT 1", values + [.integer(key)]) { row in
                    other = store.rows.objectID(from: row)
                }
                if let other {
                    return ObjectValidationError(
                        .uniquenessConstraint, objectID: snapshot.objectID, entity: owner.name, key: constraint.joined(separator: ","),
                        "another \(owner.name) (\(other)) already has the same \(constraint.joined(separator: ", ")); nothing was saved")
                }
            }
            entity = owner.superentity
        }
        return ObjectValidationError(
            .uniquenessConstraint, objectID: snapshot.objectID, entity: snapshot.objectID.entityName, key: nil,
            "a uniqueness constraint of \(snapshot.objectID.entityName) is broken; nothing was saved (\(cause))")
    }

    private func currentValue(of column: Column, snapshot: StoreSnapshot, table: EntityTable) throws -> SQLValue {
        if snapshot.heldProperties.contains(column.propertyIndex) { return SQLiteValueCoder.encode(snapshot[column.propertyIndex]) }
        return try connection.scalar("SELECT \(column.name) FROM \(table.table) WHERE Z_PK = ?", [.integer(try primaryKey(snapshot.objectID))]) ?? .null
    }
}
