import Foundation
import StoreCore
import StoreSQL

/// Writes a batch delete in SQL, applying delete rules in the store.
///
/// When nothing but the rows themselves is touched (no relationships to follow or clear, no
/// external files), it is one `DELETE`, after one `INSERT … SELECT` of history when kept.
/// Otherwise the selected keys go into a temporary table (`stowage_batch_delete`); cascade rules
/// add their destinations there until nothing new is added; deny rules are checked against it
/// (a destination deleted too does not deny); the objects left whose relationships lose members
/// are noted (`stowage_batch_nullified`), their foreign keys cleared and their versions raised;
/// join-table rows and then the rows go.
struct BatchDeleteWriter {
    let store: SQLiteStore
    let connection: SQLiteConnection
    let history: HistoryWriter?
    let wantsObjectIDs: Bool
    var files = FileChanges()

    private static let selected = "temp.stowage_batch_delete"
    private static let nullified = "temp.stowage_batch_nullified"

    init(store: SQLiteStore, connection: SQLiteConnection, history: HistoryWriter?, wantsObjectIDs: Bool) {
        self.store = store
        self.connection = connection
        self.history = history
        self.wantsObjectIDs = wantsObjectIDs
    }

    private var schema: SQLSchema { store.schema }
    private var model: ManagedObjectModel { store.model }

    mutating func delete(_ target: BatchDeleteRequest.Target) throws -> StoreBatchResult {
        if case .fetchRequest(let fetch) = target, let result = try deleteDirectly(fetch) { return result }
        try connection.execute("CREATE TEMP TABLE IF NOT EXISTS stowage_batch_delete (ent INTEGER NOT NULL, pk INTEGER NOT NULL, PRIMARY KEY (ent, pk)) WITHOUT ROWID")
        try connection.execute("CREATE TEMP TABLE IF NOT EXISTS stowage_batch_nullified (ent INTEGER NOT NULL, pk INTEGER NOT NULL, property TEXT NOT NULL, PRIMARY KEY (ent, pk, property)) WITHOUT ROWID")
        try connection.execute("DELETE FROM \(Self.selected)")
        try connection.execute("DELETE FROM \(Self.nullified)")
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
    private func deleteDirectly(_ fetch: StoreFetchRequest) throws -> StoreBatchResult? {
        let entity = try model.entity(named: fetch.entityName)
        let table = try schema.table(for: entity.name)
        let family = fetch.includesSubentities ? Array(entity.entityAndDescendantNames) : [entity.name]
        for name in family {
            guard let member = model.entitiesByName[name] else { continue }
            if member.relationships.contains(where: { $0.inverseRelationship != nil || $0.deleteRule == .cascade || $0.deleteRule == .deny }) { return nil }
            if member.attributes.contains(where: \.allowsExternalBinaryDataStorage) { return nil }
        }
        var request = fetch
        request.resultType = .managedObjectID
        let returning = wantsObjectIDs ? " RETURNING Z_ENT, Z_PK" : ""
        if fetch.fetchLimit == 0 && fetch.fetchOffset == 0, let condition = try directCondition(request) {
            try history?.recordDeletions(from: table, where: condition.sql, condition.bindings)
            return try run("DELETE FROM \(table.table) AS t0 WHERE \(condition.sql)\(returning)", condition.bindings)
        }
        guard history == nil else { return nil }
        let selection = try store.compiler.selectObjects(request, columns: ["t0.Z_PK"])
        return try run("DELETE FROM \(table.table) WHERE Z_PK IN (\(selection.sql))\(returning)", selection.bindings)
    }

    /// The fetch's condition over `t0` (`1` for every row) when it needs no join.
    private func directCondition(_ request: StoreFetchRequest) throws -> CompiledQuery? {
        let filtered = try FilteredFetch(request, schema: schema, model: model)
        guard filtered.level.from.count == 1 else { return nil }
        let conditions = filtered.level.conditions
        return filtered.translator.finish(conditions.isEmpty ? "1" : conditions.joined(separator: " AND "))
    }

    private func run(_ sql: String, _ bindings: [SQLValue]) throws -> StoreBatchResult {
        var result = StoreBatchResult()
        if wantsObjectIDs {
            try connection.query(sql, bindings) { row in
                if let id = store.rows.objectID(entityNumber: row.int64(at: 0), key: row.int64(at: 1)) { result.deleted.append(id) }
            }
            result.count = result.deleted.count
        } else {
            try connection.run(sql, bindings)
            result.count = connection.changes
        }
        return result
    }

    // MARK: Selecting

    private func select(_ target: BatchDeleteRequest.Target) throws {
        switch target {
        case .fetchRequest(var fetch):
            fetch.resultType = .managedObjectID
            let selection = try store.compiler.selectObjects(fetch, columns: ["t0.Z_ENT", "t0.Z_PK"])
            try connection.run("INSERT OR IGNORE INTO \(Self.selected) (ent, pk) \(selection.sql)", selection.bindings)
        case .objectIDs(let ids):
            for id in ids where id.storeIdentifier == store.identifier {
                guard let key = id.primaryKey, !id.isTemporaryID, let table = schema.tables[id.entityName] else { continue }
                try connection.run(
                    "INSERT OR IGNORE INTO \(Self.selected) (ent, pk) SELECT Z_ENT, Z_PK FROM \(table.table) WHERE Z_PK = ? AND Z_ENT = ?",
                    [.integer(key), .integer(table.number)])
            }
        }
    }

    /// `SELECT pk FROM stowage_batch_delete WHERE ent = n`: the selected objects of one entity.
    private func members(_ number: Int64) -> String { "SELECT pk FROM \(Self.selected) WHERE ent = \(number)" }

    /// The entities with objects selected, with their numbers.
    private func selectedEntities() throws -> [(EntityDescription, Int64)] {
        var numbers: [Int64] = []
        try connection.query("SELECT DISTINCT ent FROM \(Self.selected) ORDER BY ent") { numbers.append($0.int64(at: 0)) }
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
                    try connection.run("INSERT OR IGNORE INTO \(Self.selected) (ent, pk) SELECT Z_ENT, Z_PK FROM \(destination.table) WHERE Z_PK IN (\(keys))")
                    added += connection.changes
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
                var holder: ManagedObjectID?
                try connection.query(
                    """
                    SELECT d.Z_PK, d.Z_ENT FROM \(destination.table) d WHERE d.Z_PK IN (\(keys)) \
                    AND NOT EXISTS (SELECT 1 FROM \(Self.selected) x WHERE x.ent = d.Z_ENT AND x.pk = d.Z_PK) LIMIT 1
                    """) { holder = store.rows.objectID(from: $0) }
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
                    """
                    INSERT OR IGNORE INTO \(Self.nullified) (ent, pk, property) SELECT d.Z_ENT, d.Z_PK, ? FROM \(destination.table) d \
                    WHERE d.Z_PK IN (\(keys)) AND NOT EXISTS (SELECT 1 FROM \(Self.selected) x WHERE x.ent = d.Z_ENT AND x.pk = d.Z_PK)
                    """, [.text(inverse.name)])
            }
        }
    }

    // MARK: Writing

    private mutating func removeRows() throws -> StoreBatchResult {
        var result = StoreBatchResult()
        // History first: updates of the objects left, tombstones of the deleted (read before they go).
        var properties: [String] = []
        try connection.query("SELECT DISTINCT property FROM \(Self.nullified) ORDER BY property") { properties.append($0.string(at: 0) ?? "") }
        if let history {
            for property in properties {
                try connection.run(
                    """
                    INSERT INTO \(HistoryTables.changes) (ZTRANSACTION, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZCOLUMNS) \
                    SELECT \(history.transaction), \(PersistentHistoryChange.ChangeType.update.rawValue), ent, pk, ? FROM \(Self.nullified) WHERE property = ? ORDER BY ent, pk
                    """, [.text(property), .text(property)])
            }
        }
        let roots = schema.rootTables.compactMap { schema.tables[$0.rootEntity] }
        for root in roots {
            let numbers = root.entityNumbers.map(String.init).joined(separator: ", ")
            try history?.recordDeletions(from: root, where: "t0.Z_PK IN (SELECT pk FROM \(Self.selected) WHERE ent IN (\(numbers)))", [])
        }
        // Foreign keys pointing at deleted objects are cleared; join rows naming them removed.
        for entity in model.entities {
            guard let table = schema.tables[entity.name] else { continue }
            for column in table.columns where entity.propertiesByName[column.property]?.entity === entity || entity.superentity == nil {
                guard case .toOne(let destinationName, let orderColumn) = column.kind,
                    let destination = schema.tables[destinationName]
                else { continue }
                let targets = "SELECT pk FROM \(Self.selected) WHERE ent IN (\(destination.entityNumbers.map(String.init).joined(separator: ", ")))"
                let order = orderColumn.map { ", \($0) = NULL" } ?? ""
                try connection.run(
                    "UPDATE \(table.table) SET \(column.name) = NULL\(order) WHERE \(column.name) IN (\(targets)) AND Z_ENT = \(table.number)")
            }
        }
        for join in schema.joinTables {
            try connection.run("DELETE FROM \(join.name) WHERE \(join.ownerColumn) IN (SELECT pk FROM \(Self.selected)) OR \(join.memberColumn) IN (SELECT pk FROM \(Self.selected))")
        }
        for root in roots {
            let numbers = root.entityNumbers.map(String.init).joined(separator: ", ")
            try connection.run("UPDATE \(root.table) SET Z_OPT = Z_OPT + 1 WHERE Z_PK IN (SELECT pk FROM \(Self.nullified) WHERE ent IN (\(numbers)))")
            try noteExternalFiles(of: root, numbers: numbers)
            try connection.run("DELETE FROM \(root.table) WHERE Z_PK IN (SELECT pk FROM \(Self.selected) WHERE ent IN (\(numbers)))")
            result.count += connection.changes
        }
        if wantsObjectIDs {
            try connection.query("SELECT ent, pk FROM \(Self.selected) ORDER BY ent, pk") { row in
                if let id = store.rows.objectID(entityNumber: row.int64(at: 0), key: row.int64(at: 1)) { result.deleted.append(id) }
            }
            try connection.query("SELECT DISTINCT ent, pk FROM \(Self.nullified) ORDER BY ent, pk") { row in
                if let id = store.rows.objectID(entityNumber: row.int64(at: 0), key: row.int64(at: 1)) { result.updated.append(id) }
            }
        }
        return result
    }

    /// Files of external-storage attributes of the rows about to be deleted, removed once the delete commits.
    private mutating func noteExternalFiles(of root: EntityTable, numbers: String) throws {
        guard let storage = store.externalStorage else { return }
        var seen: Set<String> = []
        for name in root.entityNumbers.compactMap({ schema.entityNames[$0] }) {
            guard let table = schema.tables[name] else { continue }
            for column in table.columns where seen.insert(column.name).inserted {
                guard case .attribute(_, true) = column.kind else { continue }
                try connection.query("SELECT \(column.name) FROM \(root.table) WHERE Z_PK IN (SELECT pk FROM \(Self.selected) WHERE ent IN (\(numbers))) AND \(column.name) IS NOT NULL") { row in
                    if let data = row.data(at: 0), let file = storage.file(for: data) { files.obsolete.append(file) }
                }
            }
        }
    }
}
