import Foundation
import StoreCore

/// Writes a batch delete in SQL, applying delete rules in the store, for any SQL store.
///
/// When nothing but the rows themselves is touched (no relationships to follow or clear, no
/// external files), it is one `DELETE`, after one `INSERT … SELECT` of history when kept.
/// Otherwise the selected keys go into a temporary table (`stowage_batch_delete`, the connection's
/// own: ``SQLDialect/temporaryTable(_:columns:primaryKey:)``); cascade rules
/// add their destinations there until nothing new is added; deny rules are checked against it
/// (a destination deleted too does not deny); the objects left whose relationships lose members
/// are noted (`stowage_batch_nullified`), their foreign keys cleared and their versions raised;
/// join-table rows and then the rows go.
///
/// For example:
///
/// ```swift
/// var deleter = SQLBatchDeleter(store: store, connection: connection, history: history, wantsObjectIDs: true)
/// let result = try deleter.delete(.fetchRequest(StoreFetchRequest(entityName: "Post", predicate: "draft == YES")))
/// ```
package struct SQLBatchDeleter<Store: SQLStore> {
    let store: Store
    let connection: Store.Connection
    package var history: SQLHistoryWriter<Store>?
    let wantsObjectIDs: Bool
    /// Told, before the rows of a root table that `condition` (over the table) selects are deleted,
    /// so that a store can note what they keep outside the database (SQLite's external files).
    package var willDeleteRows: ((_ root: EntityTable, _ condition: String) throws -> Void)?
    private let selected: String
    private let nullified: String
    private let creates: [String]

    package init(store: Store, connection: Store.Connection, history: SQLHistoryWriter<Store>?, wantsObjectIDs: Bool) {
        self.store = store
        self.connection = connection
        self.history = history
        self.wantsObjectIDs = wantsObjectIDs
        let dialect = store.schema.dialect, integer = dialect.integerType
        let selected = dialect.temporaryTable("stowage_batch_delete", columns: "ent \(integer) NOT NULL, pk \(integer) NOT NULL", primaryKey: "ent, pk")
        let nullified = dialect.temporaryTable(
            "stowage_batch_nullified", columns: "ent \(integer) NOT NULL, pk \(integer) NOT NULL, property TEXT NOT NULL", primaryKey: "ent, pk, property")
        self.selected = selected.name
        self.nullified = nullified.name
        creates = [selected.create, nullified.create]
    }

    private var schema: SQLSchema { store.schema }
    private var model: ManagedObjectModel { store.model }
    private var dialect: any SQLDialect { store.schema.dialect }

    /// `INSERT` into a temporary table skipping rows already there: `insert(into, rows)`.
    private func insertNew(into table: String, _ columnsAndRows: String) -> String {
        let (insert, onConflict) = dialect.insertIgnoringDuplicates
        return "\(insert) INTO \(table) \(columnsAndRows)\(onConflict)"
    }

    package mutating func delete(_ target: BatchDeleteRequest.Target) throws -> StoreBatchResult {
        if case .fetchRequest(let fetch) = target, let result = try deleteDirectly(fetch) { return result }
        for create in creates { try connection.run(create, []) }
        try connection.run("DELETE FROM \(selected)", [])
        try connection.run("DELETE FROM \(nullified)", [])
        try select(target)
        try cascade()
        try checkDenyRules()
        try noteNullified()
        return try removeRows()
    }

    // MARK: One statement

    /// The whole delete as one `DELETE`, when the entity's objects have no relationships with
    /// rules or inverses and no external files; `nil` otherwise. History, when kept, is recorded
    /// first from the same condition (only for a condition without fetch limit or offset, which
    /// selects the same rows twice for sure).
    private mutating func deleteDirectly(_ fetch: StoreFetchRequest) throws -> StoreBatchResult? {
        let entity = try model.entity(named: fetch.entityName)
        let table = try schema.table(for: entity.name)
        let family = fetch.includesSubentities ? Array(entity.entityAndDescendantNames) : [entity.name]
        for name in family {
            guard let member = model.entitiesByName[name] else { continue }
            if member.relationships.contains(where: { $0.inverseRelationship != nil || $0.deleteRule == .cascade || $0.deleteRule == .deny }) { return nil }
            if willDeleteRows != nil, member.attributes.contains(where: \.allowsExternalBinaryDataStorage) { return nil }
        }
        var request = fetch
        request.resultType = .managedObjectID
        let returning = wantsObjectIDs ? " RETURNING Z_ENT, Z_PK" : ""
        if fetch.fetchLimit == 0 && fetch.fetchOffset == 0, let rows = try directRows(request) {
            switch rows {
            case .everyRow:
                try history?.recordDeletions(from: table, where: nil, [])
                // No WHERE clause at all: SQLite then empties the table without visiting each
                // row (its truncate optimization) when nothing is returned.
                return try run("DELETE FROM \(table.table)\(returning)", [])
            case .matching(let condition):
                try history?.recordDeletions(from: table, where: condition.sql, condition.bindings)
                return try run("DELETE FROM \(table.table) AS t0 WHERE \(condition.sql)\(returning)", condition.bindings)
            }
        }
        guard history == nil else { return nil }
        let selection = try store.compiler.selectObjects(request, columns: ["t0.Z_PK"])
        return try run("DELETE FROM \(table.table) WHERE Z_PK IN (\(selection.sql))\(returning)", selection.bindings)
    }

    /// The rows of the entity's table a fetch selects without a join.
    private enum DirectRows {
        /// Every row of the table.
        case everyRow
        /// The rows a condition over `t0` holds for.
        case matching(CompiledQuery)
    }

    /// The rows the fetch selects, when it needs no join; `nil` when it needs one.
    private func directRows(_ request: StoreFetchRequest) throws -> DirectRows? {
        let filtered = try FilteredFetch(request, schema: schema, model: model)
        guard filtered.level.from.count == 1 else { return nil }
        let conditions = filtered.level.conditions
        return conditions.isEmpty ? .everyRow : .matching(filtered.translator.finish(conditions.joined(separator: " AND ")))
    }

    private func run(_ sql: String, _ bindings: [SQLValue]) throws -> StoreBatchResult {
        var result = StoreBatchResult()
        if wantsObjectIDs {
            let rows = store.rows
            result.deleted = try connection.collect(sql, bindings) { rows.objectID(entityNumber: $0.int64(at: 0), key: $0.int64(at: 1)) }
            result.count = result.deleted.count
        } else {
            result.count = try connection.run(sql, bindings)
        }
        return result
    }

    // MARK: Selecting

    private func select(_ target: BatchDeleteRequest.Target) throws {
        switch target {
        case .fetchRequest(var fetch):
            fetch.resultType = .managedObjectID
            let selection = try store.compiler.selectObjects(fetch, columns: ["t0.Z_ENT", "t0.Z_PK"])
            try connection.run(insertNew(into: selected, "(ent, pk) \(selection.sql)"), selection.bindings)
        case .objectIDs(let ids):
            var keys: [Int64: [Int64]] = [:]
            for id in ids where id.storeIdentifier == store.identifier {
                guard let key = id.primaryKey, !id.isTemporaryID, let table = schema.tables[id.entityName] else { continue }
                keys[table.number, default: []].append(key)
            }
            for (number, keys) in keys.sorted(by: { $0.key < $1.key }) {
                guard let name = schema.entityNames[number], let table = schema.tables[name] else { continue }
                try connection.run(
                    insertNew(
                        into: selected,
                        "(ent, pk) SELECT Z_ENT, Z_PK FROM \(table.table) WHERE Z_PK \(dialect.isAmongKeys(dialect.parameter(1, declaredType: nil))) AND Z_ENT = \(number)"),
                    [dialect.keyList(keys)])
            }
        }
    }

    /// `SELECT pk FROM stowage_batch_delete WHERE ent = n`: the selected objects of one entity.
    private func members(_ number: Int64) -> String { "SELECT pk FROM \(selected) WHERE ent = \(number)" }

    /// The entities with objects selected, with their numbers.
    private func selectedEntities() throws -> [(EntityDescription, Int64)] {
        let numbers = try connection.collect("SELECT DISTINCT ent FROM \(selected) ORDER BY ent", []) { $0.int64(at: 0) }
        return numbers.compactMap { number in schema.entityNames[number].flatMap { model.entitiesByName[$0] }.map { ($0, number) } }
    }

    /// The keys of the destinations of `relationship` for the selected objects of entity `number`.
    private func destinationKeys(_ relationship: RelationshipDescription, of number: Int64, in table: EntityTable) -> String? {
        if relationship.isToMany {
            switch table.toMany[relationship.name] {
            case .foreignKey(_, let destinationTable, let column, _)?:
                return "SELECT Z_PK FROM \(destinationTable) WHERE \(column) IN (\(members(number)))"
            case .joinTable(_, let joinTable, let ownerColumn, let memberColumn, _)?:
                return "SELECT \(memberColumn) FROM \(joinTable) WHERE \(ownerColumn) IN (\(members(number)))"
            case nil:
                return nil
            }
        }
        guard let column = table.column(for: relationship.name) else { return nil }
        return "SELECT \(column.name) FROM \(table.table) WHERE Z_PK IN (\(members(number))) AND \(column.name) IS NOT NULL"
    }

    private func destinationTable(_ relationship: RelationshipDescription) throws -> EntityTable {
        try schema.table(for: schema.table(for: relationship.destinationEntityName).rootName)
    }

    // MARK: Delete rules

    /// Adds the destinations of cascade relationships until a pass adds nothing.
    private func cascade() throws {
        var added = 1
        while added > 0 {
            added = 0
            for (entity, number) in try selectedEntities() {
                let table = try schema.table(for: entity.name)
                for relationship in entity.relationships where relationship.deleteRule == .cascade {
                    guard let keys = destinationKeys(relationship, of: number, in: table) else { continue }
                    let destination = try destinationTable(relationship)
                    added += try connection.run(insertNew(into: selected, "(ent, pk) SELECT Z_ENT, Z_PK FROM \(destination.table) WHERE Z_PK IN (\(keys))"), [])
                }
            }
        }
    }

    /// Refuses the delete when a deny relationship holds an object that is not deleted too.
    private func checkDenyRules() throws {
        for (entity, number) in try selectedEntities() {
            let table = try schema.table(for: entity.name)
            for relationship in entity.relationships where relationship.deleteRule == .deny {
                guard let keys = destinationKeys(relationship, of: number, in: table) else { continue }
                let destination = try destinationTable(relationship)
                let rows = store.rows
                let holder = try connection.collect(
                    """
                    SELECT d.Z_PK, d.Z_ENT FROM \(destination.table) d WHERE d.Z_PK IN (\(keys)) \
                    AND NOT EXISTS (SELECT 1 FROM \(selected) x WHERE x.ent = d.Z_ENT AND x.pk = d.Z_PK) LIMIT 1
                    """, []) { rows.objectID(from: $0) }.first
                if let holder {
                    throw ObjectValidationError(
                        .deleteDenied, entity: entity.name, key: relationship.name,
                        "cannot batch-delete: relationship '\(relationship.name)' of \(entity.name) has the deny rule and still holds \(holder); nothing was deleted")
                }
            }
        }
    }

    /// Notes every object left whose relationships lose members, by relationship.
    private func noteNullified() throws {
        for (entity, number) in try selectedEntities() {
            let table = try schema.table(for: entity.name)
            for relationship in entity.relationships {
                guard let inverse = relationship.inverseRelationship, relationship.deleteRule != .noAction,
                    let keys = destinationKeys(relationship, of: number, in: table)
                else { continue }
                let destination = try destinationTable(relationship)
                try connection.run(
                    insertNew(
                        into: nullified,
                        """
                        (ent, pk, property) SELECT d.Z_ENT, d.Z_PK, \(QueryTranslator.literal(.text(inverse.name))) FROM \(destination.table) d \
                        WHERE d.Z_PK IN (\(keys)) AND NOT EXISTS (SELECT 1 FROM \(selected) x WHERE x.ent = d.Z_ENT AND x.pk = d.Z_PK)
                        """), [])
            }
        }
    }

    // MARK: Writing

    private mutating func removeRows() throws -> StoreBatchResult {
        var result = StoreBatchResult()
        // History first: updates of the objects left, tombstones of the deleted (read before they go).
        if history != nil {
            let properties = try connection.collect("SELECT DISTINCT property FROM \(nullified) ORDER BY property", []) { $0.text(at: 0) }
            for property in properties {
                try history?.record(
                    .update, rowsOf: "SELECT ent, pk FROM \(nullified) WHERE property = \(QueryTranslator.literal(.text(property)))", columns: property)
            }
        }
        let roots = schema.rootTables.compactMap { schema.tables[$0.rootEntity] }
        for root in roots {
            let numbers = root.entityNumbers.map(String.init).joined(separator: ", ")
            try history?.recordDeletions(from: root, where: "t0.Z_PK IN (SELECT pk FROM \(selected) WHERE ent IN (\(numbers)))", [])
        }
        // Foreign keys pointing at deleted objects are cleared; join rows naming them removed.
        for entity in model.entities {
            guard let table = schema.tables[entity.name] else { continue }
            for column in table.columns where entity.propertiesByName[column.property]?.entity === entity || entity.superentity == nil {
                guard case .toOne(let destinationName, let orderColumn) = column.kind,
                    let destination = schema.tables[destinationName]
                else { continue }
                let targets = "SELECT pk FROM \(selected) WHERE ent IN (\(destination.entityNumbers.map(String.init).joined(separator: ", ")))"
                let order = orderColumn.map { ", \($0) = NULL" } ?? ""
                try connection.run(
                    "UPDATE \(table.table) SET \(column.name) = NULL\(order) WHERE \(column.name) IN (\(targets)) AND Z_ENT = \(table.number)", [])
            }
        }
        for join in schema.joinTables {
            try connection.run("DELETE FROM \(join.name) WHERE \(join.ownerColumn) IN (SELECT pk FROM \(selected)) OR \(join.memberColumn) IN (SELECT pk FROM \(selected))", [])
        }
        for root in roots {
            let numbers = root.entityNumbers.map(String.init).joined(separator: ", ")
            try connection.run("UPDATE \(root.table) SET Z_OPT = Z_OPT + 1 WHERE Z_PK IN (SELECT pk FROM \(nullified) WHERE ent IN (\(numbers)))", [])
            let condition = "Z_PK IN (SELECT pk FROM \(selected) WHERE ent IN (\(numbers)))"
            try willDeleteRows?(root, condition)
            result.count += try connection.run("DELETE FROM \(root.table) WHERE \(condition)", [])
        }
        if wantsObjectIDs {
            let rows = store.rows
            result.deleted = try connection.collect("SELECT ent, pk FROM \(selected) ORDER BY ent, pk", []) {
                rows.objectID(entityNumber: $0.int64(at: 0), key: $0.int64(at: 1))
            }
            result.updated = try connection.collect("SELECT DISTINCT ent, pk FROM \(nullified) ORDER BY ent, pk", []) {
                rows.objectID(entityNumber: $0.int64(at: 0), key: $0.int64(at: 1))
            }
        }
        return result
    }
}
