import Foundation
import StoreCore
import StoreSQL

extension SQLiteStore {
    /// Compiles the request to SQL run in one read transaction on a pooled reader (prefetching included);
    /// batched or value-less object fetches return only IDs, faulted in later.
    public func execute(_ request: StoreFetchRequest) throws -> StoreFetchResult {
        try read { connection in
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
                var snapshots = try fetchSnapshots(request, on: connection)
                // The prefetch cache is shared by every context: a pinned generation's rows stay out of it.
                if ConnectionPool.pinned == nil {
                    try prefetcher(on: connection).prefetch(request.relationshipKeyPathsForPrefetching, for: &snapshots, entityName: request.entityName)
                }
                return .snapshots(snapshots)
            case .dictionary:
                let query = try compiler.selectDictionaries(request)
                var results: [[String: StoreValue]] = []
                try connection.query(query.query.sql, query.query.bindings) { row in
                    results.append(query.read(row, dialect: schema.dialect) { entity, key in
                        rows.objectID(entityName: entity, key: key)
                            ?? ManagedObjectID(entityName: entity, storeIdentifier: identifier, primaryKey: key)
                    })
                }
                return .dictionaries(results)
            }
        }
    }

    private func objectIDs(_ request: StoreFetchRequest, on connection: SQLiteConnection) throws -> [ManagedObjectID] {
        let query = try compiler.selectObjects(request, columns: ["t0.Z_PK", "t0.Z_ENT"])
        var ids: [ManagedObjectID] = []
        try connection.query(query.sql, query.bindings) { row in
            if let id = rows.objectID(from: row) { ids.append(id) }
        }
        return ids
    }

    private func fetchSnapshots(_ request: StoreFetchRequest, on connection: SQLiteConnection) throws -> [StoreSnapshot] {
        let layout = try rows.layout(for: request.entityName, includesSubentities: request.includesSubentities)
        let query = try compiler.selectObjects(request, columns: layout.selectList)
        var snapshots: [StoreSnapshot] = []
        try connection.query(query.sql, query.bindings) { row in
            if let snapshot = try rows.snapshot(from: row, layout: layout, external: externalStorage) { snapshots.append(snapshot) }
        }
        return snapshots
    }

    /// A row prefetched for this object if one is waiting (handed out once), else the row read by `Z_PK`
    /// and `Z_ENT`; `nil` for another store's ID or a missing row.
    public func snapshot(for objectID: ManagedObjectID) throws -> StoreSnapshot? {
        guard objectID.storeIdentifier == identifier, let key = objectID.primaryKey else { return nil }
        if ConnectionPool.pinned == nil, let handedOut = prefetched.take(objectID) { return handedOut }
        return try read { try snapshot(in: $0, key: key, entity: objectID.entityName) }
    }

    /// Snapshots of several objects, one query per table (batched fetches ask for a batch).
    public func snapshots(for objectIDs: [ManagedObjectID]) throws -> [StoreSnapshot] {
        var byTable: [String: [Int64]] = [:]
        for id in objectIDs where id.storeIdentifier == identifier {
            guard let key = id.primaryKey, let table = schema.tables[id.entityName] else { continue }
            byTable[table.rootName, default: []].append(key)
        }
        return try read { connection in
            var found: [ManagedObjectID: StoreSnapshot] = [:]
            for (root, keys) in byTable {
                try forEachSnapshot(ofRoot: root, keys: keys, on: connection) { found[$0.objectID] = $0 }
            }
            return objectIDs.compactMap { found[$0] }
        }
    }

    /// Reads the rows with `keys` from the table of root entity `root`, in one query.
    func forEachSnapshot(ofRoot root: String, keys: [Int64], on connection: SQLiteConnection, _ body: (StoreSnapshot) -> Void) throws {
        let table = try schema.table(for: root)
        let layout = try rows.layout(for: root)
        let sql = "SELECT \(layout.columns) FROM \(table.table) t0 WHERE t0.Z_PK IN (SELECT value FROM json_each(?))"
        try connection.query(sql, [.text(Self.jsonArray(keys))]) { row in
            if let snapshot = try rows.snapshot(from: row, layout: layout, external: externalStorage) { body(snapshot) }
        }
    }

    /// The members of the to-many relationship read in one query (from its join table or the destination's
    /// foreign key), by position for ordered ones, else by key; empty for another store's ID.
    public func objectIDs(forRelationship name: String, of objectID: ManagedObjectID) throws -> [ManagedObjectID] {
        guard objectID.storeIdentifier == identifier, let key = objectID.primaryKey else { return [] }
        let table = try schema.table(for: objectID.entityName)
        guard let storage = table.toMany[name] else {
            throw ModelError(.unknownKey, entity: objectID.entityName, key: name, "\(objectID.entityName) has no to-many relationship \(name)")
        }
        return try read { connection in
            var ids: [ManagedObjectID] = []
            try connection.query(membersQuery(storage, owners: "?"), [.integer(key)]) { row in
                if let id = rows.objectID(from: row) { ids.append(id) }
            }
            return ids
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
            guard let storage = try schema.table(for: entityName).toMany[name] else {
                throw ModelError(.unknownKey, entity: entityName, key: name, "\(entityName) has no to-many relationship \(name)")
            }
            try read { connection in
                try connection.query(membersQuery(storage, owners: "json"), [.text(Self.jsonArray(Array(owners.keys)))]) { row in
                    if let member = rows.objectID(from: row), let owner = owners[row.int64(at: 2)] { result[owner, default: []].append(member) }
                }
            }
        }
        return result
    }

    /// The members of a to-many relationship of one owner (`owners` = "?", bound to its key) or
    /// of many (`owners` = "json", bound to a JSON array of keys) — ``StoreSQL/SQLSchema/membersQuery(_:ownerTest:memberColumns:)``.
    func membersQuery(_ storage: ToManyStorage, owners: String, memberColumns: [String] = ["t0.Z_PK", "t0.Z_ENT"]) -> String {
        schema.membersQuery(storage, ownerTest: owners == "?" ? "= ?" : "IN (SELECT value FROM json_each(?))", memberColumns: memberColumns)
    }

    static func jsonArray(_ keys: [Int64]) -> String {
        "[" + keys.map(String.init).joined(separator: ",") + "]"
    }
}

extension SQLiteStore {
    /// The saved snapshot of row `key` of `entity`, read on `connection` (inside its transaction).
    func snapshot(in connection: SQLiteConnection, key: Int64, entity: String) throws -> StoreSnapshot? {
        let table = try schema.table(for: entity)
        let layout = try rows.layout(for: entity, includesSubentities: false)
        var result: StoreSnapshot?
        try connection.query(
            "SELECT \(layout.columns) FROM \(table.table) t0 WHERE t0.Z_PK = ? AND t0.Z_ENT = ?",
            [.integer(key), .integer(table.number)]
        ) { row in
            result = try rows.snapshot(from: row, layout: layout, external: externalStorage)
        }
        return result
    }
}
