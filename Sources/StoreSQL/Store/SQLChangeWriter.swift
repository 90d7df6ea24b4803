import Foundation
import StoreCore

/// Writes one change set inside a save's transaction, for any SQL store: deletes, inserts
/// (through the driver's ``SQLStore/insert(into:count:on:row:)``), updates with optimistic locking on
/// `Z_OPT`, then to-many relationships (foreign keys, join-table rows and `Z_FOK_` order values,
/// one statement per relationship and step). Throws — leaving the transaction to roll back — a
/// `MergeConflictError` for rows changed since they were read, and ``UniquenessViolation`` for a
/// broken uniqueness constraint (named after the rollback: ``SQLStore/uniquenessError(_:)``).
///
/// An `UPDATE … WHERE Z_PK = ? AND Z_OPT = ?` that meets a row another transaction is changing
/// waits for it (SQLite's writer lock, PostgreSQL's row lock) and then sees its version: a
/// concurrent writer's change is always a conflict, never overwritten.
///
/// For example:
///
/// ```swift
/// var writer = SQLChangeWriter(store: self, connection: connection)
/// writer.history = historyRecorder      // when the store keeps persistent history
/// try writer.write(changes)
/// ```
package struct SQLChangeWriter<Store: SQLStore> {
    let store: Store
    let connection: Store.Connection
    /// Records the save in persistent history, when the store keeps it.
    package var history: (any SQLHistoryRecording)?
    /// Binary data of an attribute that allows external storage, as its column keeps it
    /// (`nil`: in the row, as the dialect encodes it).
    package var encodeExternal: ((Data) throws -> SQLValue)?
    /// Told before a row's external binary value is replaced or its row deleted.
    package var willReplaceExternal: ((_ column: Column, _ key: Int64, _ table: EntityTable) throws -> Void)?
    var conflicts: [MergeConflict] = []
    /// The `UPDATE` of each table and set of changed properties a save met: the text is made
    /// once, not once per row (the table's plan keeps the last one, so most rows hash nothing).
    private var updateStatements: [UpdateShape: String] = [:]
    /// Each entity's table plan, by the entity's identity, and the one the last row used (the
    /// rows of one entity usually follow each other).
    private var plans: [ObjectIdentifier: SQLTableWritePlan] = [:]
    private var lastPlan: SQLTableWritePlan?
    /// The values of one row, reused from row to row.
    private var rowValues: [SQLValue] = []
    /// The key and version a deleted row is bound with, reused from row to row.
    private var keyAndVersion: [SQLValue] = []
    /// Whether ``history`` is set, read once per save: comparing the existential with `nil` copied
    /// it (a retain and a release) for every row.
    var recordsHistory = false

    private struct UpdateShape: Hashable {
        let table: Int64
        let changed: PropertyMask
    }

    /// Read once: the store hands out a copy of its schema each time it is asked.
    private let schema: SQLSchema
    private let dialect: any SQLDialect

    package init(store: Store, connection: Store.Connection) {
        self.store = store
        self.connection = connection
        schema = store.schema
        dialect = schema.dialect
    }

    package mutating func write(_ changes: StoreChangeSet) throws {
        let identifier = store.identifier   // read once, not once per row
        for snapshots in [changes.inserted, changes.updated, changes.deleted] {
            for index in snapshots.indices where snapshots[index].objectID.storeIdentifier != identifier {
                throw StoreError(.wrongStore, objectID: snapshots[index].objectID, "the change names an object of another store")
            }
        }
        recordsHistory = history != nil
        // By position (as below): a snapshot copied out of its array costs a retain and a release
        // per reference it holds.
        try deleteRows(changes.deleted)
        try insert(changes.inserted)
        for index in changes.updated.indices { try update(changes.updated[index]) }
        if !conflicts.isEmpty { throw MergeConflictError(conflicts: conflicts) }
        // By position: a snapshot copied costs a retain and a release per reference it holds.
        for index in changes.inserted.indices where changes.inserted[index].holdsToMany { try writeToMany(changes.inserted[index], isNew: true) }
        for index in changes.updated.indices where changes.updated[index].holdsToMany { try writeToMany(changes.updated[index], isNew: false) }
        try history?.finish()
    }

    // MARK: Rows

    /// Inserts the rows table by table, in the order the tables first appear. Rows are grouped
    /// and read by position: a snapshot copied costs a retain and a release per reference it holds.
    private mutating func insert(_ snapshots: [StoreSnapshot]) throws {
        var groups: [(plan: SQLTableWritePlan, rows: RowPositions)] = []
        var groupOfTable: [Int64: Int] = [:]
        // A run of one entity's rows finds its group without looking anything up again.
        var runPlan: SQLTableWritePlan?
        var runGroup = 0
        for row in snapshots.indices {
            let plan = try plan(for: snapshots[row].entity)
            if plan !== runPlan {
                runPlan = plan
                if let known = groupOfTable[plan.tableNumber] {
                    runGroup = known
                } else {
                    groups.append((plan, RowPositions()))
                    runGroup = groups.count - 1
                    groupOfTable[plan.tableNumber] = runGroup
                }
            }
            groups[runGroup].rows.append(row)
        }
        for (plan, rows) in groups {
            let table = plan.table
            // The row closure captures only what it reads (not the writer, a copy per row), and
            // reads the columns as positions (not as `Column`s, a copy of their names per value).
            let dialect = dialect, encodeExternal = encodeExternal, columns = plan.valueColumns, number = plan.tableNumber
            do {
                try store.insert(into: table, count: rows.count, on: connection) { index, values in
                    let row = rows[index]
                    values.append(.integer(try Self.primaryKey(snapshots[row].objectID)))
                    values.append(.integer(number))
                    let rowValues = snapshots[row].values
                    for column in columns {
                        values.append(try Self.encode(
                            rowValues[column.propertyIndex], allowsExternalStorage: column.allowsExternalStorage, dialect: dialect, external: encodeExternal))
                    }
                }
            } catch where store.isUniqueViolation(error) {
                throw UniquenessViolation(snapshots: rows.map { snapshots[$0] }, cause: error)
            }
            if recordsHistory {
                // New keys come from one allocation, so a group's are usually consecutive: every
                // key in their range is one of the group's rows, recorded with one statement.
                if let (first, last) = try Self.consecutiveKeys(of: rows.lazy.map { snapshots[$0].objectID }) {
                    try history?.recordInsertions(into: table, keys: first, through: last)
                } else {
                    for row in rows {
                        let key = try primaryKey(snapshots[row].objectID)
                        try history?.recordInsertion(of: snapshots[row], table: table, key: key)
                    }
                }
            }
        }
    }

    private mutating func update(_ snapshot: StoreSnapshot) throws {
        let plan = try plan(for: snapshot.entity)
        let key = try primaryKey(snapshot.objectID)
        let held = snapshot.heldProperties
        // The row's values are bound from a local array (the writer's, reused): appending to the
        // writer's own while reading its other properties made Swift copy the whole writer per row.
        var bound: [SQLValue] = []
        swap(&bound, &rowValues)
        defer { swap(&bound, &rowValues) }
        bound.removeAll(keepingCapacity: true)
        let values = snapshot.values
        let dialect = dialect, encodeExternal = encodeExternal
        for column in plan.valueColumns where held.contains(column.propertyIndex) {
            if column.allowsExternalStorage, let willReplaceExternal {
                try willReplaceExternal(plan.table.columns[column.position], key, plan.table)
            }
            bound.append(try Self.encode(
                values[column.propertyIndex], allowsExternalStorage: column.allowsExternalStorage, dialect: dialect, external: encodeExternal))
        }
        let sql: String
        if let last = plan.lastUpdate, last.changed == held {
            sql = last.sql
        } else {
            let shape = UpdateShape(table: plan.tableNumber, changed: held)
            if let known = updateStatements[shape] {
                sql = known
            } else {
                sql = updateStatement(of: plan.table, changing: held)
                updateStatements[shape] = sql
            }
            plan.lastUpdate = (held, sql)
        }
        bound.append(.integer(key))
        bound.append(.integer(snapshot.version))
        let changed: Int
        do {
            changed = try connection.run(sql, bound)
        } catch where store.isUniqueViolation(error) {
            throw UniquenessViolation(snapshots: [snapshot], cause: error)
        }
        if changed == 0 {
            try noteConflict(snapshot)
            return
        }
        if recordsHistory { try history?.recordUpdate(of: snapshot, table: plan.table, key: key) }
    }

    /// `UPDATE <table> SET Z_OPT = Z_OPT + 1, <column> = ?… WHERE Z_PK = ? AND Z_OPT = ?` for the
    /// columns of the properties in `changed`, in column order.
    private func updateStatement(of table: EntityTable, changing changed: PropertyMask) -> String {
        var assignments = ["Z_OPT = Z_OPT + 1"]
        var count = 0
        for column in table.columns where changed.contains(column.propertyIndex) {
            count += 1
            assignments.append("\(column.name) = \(dialect.parameter(count, declaredType: column.declaredType))")
        }
        return "UPDATE \(table.table) SET \(assignments.joined(separator: ", ")) WHERE Z_PK = \(parameter(count + 1)) AND Z_OPT = \(parameter(count + 2))"
    }

    /// Deletes one row with `DELETE … WHERE Z_PK = ? AND Z_OPT = ?` (a conflict when it deletes
    /// nothing), and clears what its to-many relationships held.
    mutating func delete(_ snapshot: StoreSnapshot) throws {
        let plan = try plan(for: snapshot.entity)
        let key = try primaryKey(snapshot.objectID)
        if !plan.externalColumns.isEmpty, let willReplaceExternal {
            for column in plan.externalColumns { try willReplaceExternal(column, key, plan.table) }
        }
        if recordsHistory { try history?.recordDeletion(of: snapshot, table: plan.table, key: key) }
        // The key and version are written over the last row's, in an array of the writer's taken
        // for the row (emptying and refilling one cost a generic `replaceSubrange` per row).
        var bound: [SQLValue] = []
        swap(&bound, &keyAndVersion)
        defer { swap(&bound, &keyAndVersion) }
        if bound.count == 2 {
            bound[0] = .integer(key)
            bound[1] = .integer(snapshot.version)
        } else {
            bound = [.integer(key), .integer(snapshot.version)]
        }
        let deleted = try connection.run(plan.deleteSQL, bound)
        if deleted == 0 {
            try noteConflict(snapshot)
            return
        }
        try clearToMany(of: key, plan: plan)
    }

    /// Clears what the to-many relationships of the deleted row `key` held (its join-table rows,
    /// its members' foreign keys where the relationship has no inverse).
    func clearToMany(of key: Int64, plan: SQLTableWritePlan) throws {
        guard !plan.toManyCleanups.isEmpty else { return }
        let owner: [SQLValue] = [.integer(key)]
        for cleanup in plan.toManyCleanups {
            switch cleanup {
            case .joinTable(let sql), .foreignKey(let sql): try connection.run(sql, owner)
            }
        }
    }

    /// The table plan of `entity`: the last row's when it is of the same entity.
    mutating func plan(for entity: EntityDescription) throws -> SQLTableWritePlan {
        if let lastPlan, lastPlan.entity === entity { return lastPlan }
        let plan: SQLTableWritePlan
        if let known = plans[ObjectIdentifier(entity)] {
            plan = known
        } else {
            let entityName = entity.name
            plan = SQLTableWritePlan(
                entity: entity, entityName: entityName, table: try schema.table(for: entityName), model: store.model, dialect: dialect)
            plans[ObjectIdentifier(entity)] = plan
        }
        lastPlan = plan
        return plan
    }

    private mutating func noteConflict(_ snapshot: StoreSnapshot) throws {
        let current = try store.snapshot(in: connection, key: try primaryKey(snapshot.objectID), entity: snapshot.objectID.entityName)
        conflicts.append(MergeConflict(
            objectID: snapshot.objectID, expectedVersion: snapshot.version, storeVersion: current?.version ?? 0, storeSnapshot: current))
    }

    // MARK: To-many relationships

    /// Writes the members of each to-many relationship the snapshot holds, bound as one key list.
    private mutating func writeToMany(_ snapshot: StoreSnapshot, isNew: Bool) throws {
        let table = try schema.table(for: snapshot.objectID.entityName)
        let key = try primaryKey(snapshot.objectID)
        for (index, members) in snapshot.toManyRelationships {
            let name = snapshot.entity.properties[index].name
            guard let storage = table.toMany[name] else { continue }
            let keys = try members.map(primaryKey)
            let owner = parameter(1), list = parameter(2)
            let bound: [SQLValue] = [.integer(key), dialect.keyList(keys)]
            switch storage {
            case .foreignKey(_, let destinationTable, let column, let orderColumn):
                // With an inverse, the members' foreign keys were written with their rows; without
                // one, the owner sets them here (and clears those of members it no longer holds).
                if !hasInverse(name, of: snapshot) {
                    if !isNew { try connection.run("UPDATE \(destinationTable) SET \(column) = NULL WHERE \(column) = \(owner)", [.integer(key)]) }
                    if !keys.isEmpty {
                        try connection.run("UPDATE \(destinationTable) SET \(column) = \(owner) WHERE Z_PK \(dialect.isAmongKeys(list))", bound)
                    }
                }
                guard let orderColumn, !keys.isEmpty else { continue }
                try connection.run(
                    "UPDATE \(destinationTable) SET \(orderColumn) = m.position * 1024 FROM \(dialect.keyPositions(parameter(1), alias: "m")) WHERE \(destinationTable).Z_PK = m.key",
                    [dialect.keyList(keys)])
            case .joinTable(_, let joinTable, let ownerColumn, let memberColumn, let orderColumn):
                if !isNew {
                    try connection.run("DELETE FROM \(joinTable) WHERE \(ownerColumn) = \(owner) AND NOT (\(memberColumn) \(dialect.isAmongKeys(list)))", bound)
                }
                guard !keys.isEmpty else { continue }
                let (insert, onConflict) = dialect.insertIgnoringDuplicates
                try connection.run(
                    "\(insert) INTO \(joinTable) (\(ownerColumn), \(memberColumn)) SELECT \(owner), m.key FROM \(dialect.keyPositions(list, alias: "m")) WHERE TRUE\(onConflict)",
                    bound)
                if let orderColumn {
                    try connection.run(
                        "UPDATE \(joinTable) SET \(orderColumn) = m.position * 1024 FROM \(dialect.keyPositions(list, alias: "m")) WHERE \(joinTable).\(ownerColumn) = \(owner) AND \(joinTable).\(memberColumn) = m.key",
                        bound)
                }
            }
        }
    }

    // MARK: Values

    /// A value as its column keeps it: binary data of an attribute that allows external storage
    /// through `external` (when the store keeps such data in files), everything else as the dialect encodes it.
    private static func encode(
        _ value: StoreValue, allowsExternalStorage: Bool, dialect: any SQLDialect, external: ((Data) throws -> SQLValue)?
    ) throws -> SQLValue {
        if allowsExternalStorage, case .data(let data) = value, let external { return try external(data) }
        return dialect.encode(value)
    }

    private func hasInverse(_ relationship: String, of snapshot: StoreSnapshot) -> Bool {
        store.model.entitiesByName[snapshot.objectID.entityName]?.relationshipsByName[relationship]?.inverseRelationship != nil
    }

    private func parameter(_ number: Int) -> String { dialect.parameter(number, declaredType: nil) }

    private func primaryKey(_ id: ManagedObjectID) throws -> Int64 { try Self.primaryKey(id) }

    /// The first and last key of `snapshots` when each key is one more than the one before
    /// (more than one row); else nil.
    private static func consecutiveKeys(of ids: some Collection<ManagedObjectID>) throws -> (Int64, Int64)? {
        guard ids.count > 1, let first = ids.first else { return nil }
        var previous = try primaryKey(first)
        for id in ids.dropFirst() {
            let key = try primaryKey(id)
            guard key == previous &+ 1 else { return nil }
            previous = key
        }
        return (try primaryKey(first), previous)
    }

    static func primaryKey(_ id: ManagedObjectID) throws -> Int64 {
        guard let key = id.primaryKey, !id.isTemporaryID else {
            throw StoreError(.wrongStore, objectID: id, "the object has no permanent ID in this store")
        }
        return key
    }
}

/// Records a save in persistent history, inside its transaction, as ``SQLChangeWriter`` writes it.
package protocol SQLHistoryRecording {
    /// Called before the row of `snapshot` is deleted (its tombstone is read from the row).
    mutating func recordDeletion(of snapshot: StoreSnapshot, table: EntityTable, key: Int64) throws
    /// Called before the rows of `table` with keys `first` through `last`, all read at `version`
    /// and all deleted by this save, are deleted (one record per row, in key order, as
    /// ``recordDeletion(of:table:key:)`` makes them one by one).
    mutating func recordDeletions(from table: EntityTable, version: Int64, keys first: Int64, through last: Int64) throws
    mutating func recordInsertion(of snapshot: StoreSnapshot, table: EntityTable, key: Int64) throws
    /// Called once the rows of `table` with keys `first` through `last` — all of them inserted by
    /// this save, in key order — are written (one statement instead of a record per row).
    mutating func recordInsertions(into table: EntityTable, keys first: Int64, through last: Int64) throws
    mutating func recordUpdate(of snapshot: StoreSnapshot, table: EntityTable, key: Int64) throws
    /// Called once every change is written.
    mutating func finish() throws
}

/// A uniqueness constraint the database refused; the save rolls back, then names the object
/// already holding the values (``SQLStore/uniquenessError(_:)``).
package struct UniquenessViolation: Error {
    package let snapshots: [StoreSnapshot]
    package let cause: any Error
}
