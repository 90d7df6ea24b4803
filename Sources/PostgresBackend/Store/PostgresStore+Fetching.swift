#if Postgres  // the PostgreSQL store is built only with the Postgres package trait (Package.swift)
import Foundation
import StoreCore
import StoreSQL

extension PostgresStore {
    /// Compiles the request to SQL run on a pooled connection (in one `REPEATABLE READ` transaction when it
    /// prefetches); batched or value-less object fetches return only IDs, faulted in later.
    public func execute(_ request: StoreFetchRequest) throws -> StoreFetchResult {
        // Prefetching reads several statements, which must see one state.
        let statements = request.resultType == .managedObject && !request.relationshipKeyPathsForPrefetching.isEmpty ? 2 : 1
        return try (statements > 1 ? readConsistently : read) { connection in
            switch request.resultType {
            case .count:
                let query = try compiler.count(request)
                guard case .integer(let count)? = try connection.scalar(query.sql, query.bindings) else { return .count(0) }
                return .count(Int(count))
            case .managedObjectID:
                return .objectIDs(try objectIDs(request, on: connection))
            case .managedObject:
                // A batched fetch materializes batches later, by ID; without property values
                // the objects start as faults.
                if request.fetchBatchSize > 0 || !request.includesPropertyValues {
                    return .objectIDs(try objectIDs(request, on: connection))
                }
                let layout = try rows.layout(for: request.entityName, includesSubentities: request.includesSubentities)
                let query = try compiler.selectObjects(request, columns: layout.selectList)
                let rows = rows
                var snapshots = try connection.collect(query.sql, query.bindings) { rows.snapshot(from: $0, layout: layout) }
                // The prefetch cache is shared by every context: a pinned generation's rows stay out of it.
                if PinnedServerReader.current == nil {
                    try prefetcher(on: connection).prefetch(request.relationshipKeyPathsForPrefetching, for: &snapshots, entityName: request.entityName)
                }
                return .snapshots(snapshots)
            case .dictionary:
                let query = try compiler.selectDictionaries(request)
                return .dictionaries(try connection.query(query.query.sql, query.query.bindings).map { row in
                    query.read(row, dialect: schema.dialect) { entity, key in
                        rows.objectID(entityName: entity, key: key)
                            ?? ManagedObjectID(entityName: entity, storeIdentifier: identifier, primaryKey: key)
                    }
                })
            }
        }
    }

    private func objectIDs(_ request: StoreFetchRequest, on connection: ServerConnection) throws -> [ManagedObjectID] {
        let query = try compiler.selectObjects(request, columns: ["t0.Z_PK", "t0.Z_ENT"])
        let rows = rows
        return try connection.collect(query.sql, query.bindings) { rows.objectID(from: $0) }
    }

    /// A row prefetched for this object if one is waiting (handed out once), else the row read by `Z_PK`
    /// and `Z_ENT`; `nil` for another store's ID or a missing row.
    public func snapshot(for objectID: ManagedObjectID) throws -> StoreSnapshot? {
        guard objectID.storeIdentifier == identifier, let key = objectID.primaryKey else { return nil }
        if PinnedServerReader.current == nil, let handedOut = prefetched.take(objectID) { return handedOut }
        return try read { try snapshot(in: $0, key: key, entity: objectID.entityName) }
    }

    /// Snapshots of several objects, one query per table (batched fetches ask for a batch).
    public func snapshots(for objectIDs: [ManagedObjectID]) throws -> [StoreSnapshot] {
        var byTable: [String: [Int64]] = [:]
        for id in objectIDs where id.storeIdentifier == identifier {
            guard let key = id.primaryKey, let table = schema.tables[id.entityName] else { continue }
            byTable[table.rootName, default: []].append(key)
        }
        return try (byTable.count > 1 ? readConsistently : read) { connection in
            var found: [ManagedObjectID: StoreSnapshot] = [:]
            for (root, keys) in byTable {
                for snapshot in try snapshots(ofRoot: root, keys: keys, on: connection) { found[snapshot.objectID] = snapshot }
            }
            return objectIDs.compactMap { found[$0] }
        }
    }

    /// The rows with `keys` of the table of root entity `root`, in one query.
    func snapshots(ofRoot root: String, keys: [Int64], on connection: ServerConnection) throws -> [StoreSnapshot] {
        let table = try schema.table(for: root)
        let layout = try rows.layout(for: root)
        let sql = "SELECT \(layout.columns) FROM \(table.table) t0 WHERE t0.Z_PK = ANY($1::BIGINT[])"
        let rows = rows
        return try connection.collect(sql, [Self.keyArray(keys)]) { rows.snapshot(from: $0, layout: layout) }
    }

    /// The members of the to-many relationship read in one query (from its join table or the destination's
    /// foreign key), by position for ordered ones, else by key; empty for another store's ID.
    public func objectIDs(forRelationship name: String, of objectID: ManagedObjectID) throws -> [ManagedObjectID] {
        guard objectID.storeIdentifier == identifier, let key = objectID.primaryKey else { return [] }
        let storage = try toManyStorage(name, of: objectID.entityName)
        return try read { connection in
            try connection.query(membersQuery(storage), [Self.keyArray([key])]).compactMap { rows.objectID(from: $0) }
        }
    }

    /// One query per entity among the owners.
    public func objectIDs(forRelationship name: String, ofObjects objectIDs: [ManagedObjectID]) throws -> [ManagedObjectID: [ManagedObjectID]] {
        var byEntity: [String: [Int64: ManagedObjectID]] = [:]
        for id in objectIDs where id.storeIdentifier == identifier {
            if let key = id.primaryKey { byEntity[id.entityName, default: [:]][key] = id }
        }
        var result: [ManagedObjectID: [ManagedObjectID]] = [:]
        for (entityName, owners) in byEntity {
            let storage = try toManyStorage(name, of: entityName)
            try read { connection in
                for row in try connection.query(membersQuery(storage), [Self.keyArray(Array(owners.keys))]) {
                    if let member = rows.objectID(from: row), let owner = owners[row.int64(at: 2)] { result[owner, default: []].append(member) }
                }
            }
        }
        return result
    }

    private func toManyStorage(_ name: String, of entityName: String) throws -> ToManyStorage {
        guard let storage = try schema.table(for: entityName).toMany[name] else {
            throw ModelError(.unknownKey, entity: entityName, key: name, "\(entityName) has no to-many relationship \(name)")
        }
        return storage
    }

    /// The members of a to-many relationship of the owners whose keys are bound to `$1` as an
    /// array — ``StoreSQL/SQLSchema/membersQuery(_:ownerTest:memberColumns:)``.
    func membersQuery(_ storage: ToManyStorage, memberColumns: [String] = ["t0.Z_PK", "t0.Z_ENT"]) -> String {
        schema.membersQuery(storage, ownerTest: "= ANY($1::BIGINT[])", memberColumns: memberColumns)
    }

    /// Keys bound as one array literal (`{1,2,3}`), so any number of them takes one parameter.
    static func keyArray(_ keys: [Int64]) -> SQLValue {
        .text("{" + keys.map(String.init).joined(separator: ",") + "}")
    }

    /// The saved snapshot of row `key` of `entity`, read on `connection` (inside its transaction).
    func snapshot(in connection: ServerConnection, key: Int64, entity: String) throws -> StoreSnapshot? {
        let table = try schema.table(for: entity)
        let layout = try rows.layout(for: entity, includesSubentities: false)
        return try connection.query(
            "SELECT \(layout.columns) FROM \(table.table) t0 WHERE t0.Z_PK = $1 AND t0.Z_ENT = $2", [.integer(key), .integer(table.number)]
        ).first.flatMap { rows.snapshot(from: $0, layout: layout) }
    }
}

extension RowReader {
    /// The ID of a row whose first two columns are `Z_PK` and `Z_ENT`.
    func objectID(from row: ServerRow) -> ManagedObjectID? {
        objectID(entityNumber: row.int64(at: 1), key: row.int64(at: 0))
    }

    /// The snapshot of a row read with `layout`.
    func snapshot(from row: ServerRow, layout: Layout) -> StoreSnapshot? {
        let number = row.int64(at: 1)
        guard let id = objectID(entityNumber: number, key: row.int64(at: 0)), let fields = layout.fields[number], let entity = entities[number]
        else { return nil }
        var snapshot = StoreSnapshot(objectID: id, version: row.int64(at: 2), entity: entity)
        for field in fields {
            switch field.kind {
            case .attribute(let type, _):
                snapshot.setValue(PostgresDialect.decode(row.value(at: field.position), as: type), at: field.propertyIndex)
            case .toOne(let destination, let entityPosition):
                guard !row.isNull(at: field.position) else { continue }
                let number = entityPosition.map { row.isNull(at: $0) ? destination : row.int64(at: $0) } ?? destination
                if let target = objectID(entityNumber: number, key: row.int64(at: field.position)) {
                    snapshot.setValue(.objectID(target), at: field.propertyIndex)
                }
            }
        }
        return snapshot
    }
}
#endif
