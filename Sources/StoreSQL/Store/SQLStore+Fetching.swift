import Foundation
import StoreCore

/// Fetching and faulting, for every SQL store: these are the stores' `PersistentStore` methods.
extension SQLStore {
    /// Compiles the request to SQL run on one connection (in one consistent read when it
    /// prefetches); batched or value-less object fetches return only IDs, faulted in later.
    public func execute(_ request: StoreFetchRequest) throws -> StoreFetchResult {
        try execute(request, known: nil)
    }

    /// The same, with the rows of objects the asking context holds with values read as their
    /// ID and version alone — unless the fetch prefetches, which reads their to-one keys.
    package func execute(_ request: StoreFetchRequest, skippingValuesOf known: KnownRows) throws -> StoreFetchResult {
        try execute(request, known: known)
    }

    private func execute(_ request: StoreFetchRequest, known: KnownRows?) throws -> StoreFetchResult {
        // Prefetching reads several statements, which must see one state.
        let prefetches = request.resultType == .managedObject && !request.relationshipKeyPathsForPrefetching.isEmpty
        let known = prefetches ? nil : known
        return try (prefetches ? readConsistently : read) { connection in
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
                let read = Self.snapshotReader(for: Connection.Row.self, rows: rows, layout: layout, external: externalBinaryReader, known: known)
                var snapshots = try connection.collect(query.sql, query.bindings, read)
                // The prefetch cache is shared by every context: a pinned generation's rows stay out of it.
                if !isReadingPinnedGeneration {
                    try prefetcher(on: connection).prefetch(storedPrefetchPaths(of: request), for: &snapshots, entityName: request.entityName)
                }
                return .snapshots(snapshots)
            case .dictionary:
                let query = try compiler.selectDictionaries(request)
                let rows = rows, identifier = identifier, dialect = dialect
                return .dictionaries(try connection.collect(query.query.sql, query.query.bindings) { row in
                    try query.read(row, dialect: dialect) { entity, key in
                        rows.objectID(entityName: entity, key: key)
                            ?? ManagedObjectID(entityName: entity, storeIdentifier: identifier, primaryKey: key)
                    }
                })
            }
        }
    }

    /// What a fetch does with each row, made where the driver's row type is a generic parameter
    /// of its own: a closure made in `execute` found that type through the store's conformance
    /// again for every row.
    private static func snapshotReader<Row: SQLRow>(
        for _: Row.Type, rows: RowReader, layout: RowReader.Layout, external: (@Sendable (Data) throws -> Data)?, known: KnownRows?
    ) -> @Sendable (Row) throws -> StoreSnapshot? {
        { row in try rows.snapshot(from: row, layout: layout, external: external, known: known) }
    }

    private func objectIDs(_ request: StoreFetchRequest, on connection: Connection) throws -> [ManagedObjectID] {
        let query = try compiler.selectObjects(request, columns: ["t0.Z_PK", "t0.Z_ENT"])
        let rows = rows
        return try connection.collect(query.sql, query.bindings) { rows.objectID(from: $0) }
    }

    /// A row prefetched for this object if one is waiting (handed out once), else the row read by `Z_PK`
    /// and `Z_ENT`; `nil` for another store's ID or a missing row.
    public func snapshot(for objectID: ManagedObjectID) throws -> StoreSnapshot? {
        guard objectID.storeIdentifier == identifier, let key = objectID.primaryKey else { return nil }
        if !isReadingPinnedGeneration, let handedOut = prefetched.take(objectID) { return handedOut }
        return try read { try snapshot(in: $0, key: key, entity: objectID.entityName) }
    }

    /// Snapshots of several objects, one query per table (batched fetches ask for a batch).
    public func snapshots(for objectIDs: [ManagedObjectID]) throws -> [StoreSnapshot] {
        if let first = objectIDs.first, first.storeIdentifier == identifier, let table = schema.tables[first.entityName],
            objectIDs.allSatisfy({ $0.sharesEntityAndStore(with: first) })
        {
            return try snapshots(ofOneEntity: objectIDs, root: table.rootName)
        }
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

    /// Snapshots of a batch of IDs of one entity and store (a batched fetch's), in their order:
    /// one query, its rows placed by key — no dictionary of IDs, no string hashed per ID.
    private func snapshots(ofOneEntity objectIDs: [ManagedObjectID], root: String) throws -> [StoreSnapshot] {
        let keys = objectIDs.compactMap(\.primaryKey)
        let found = try read { try snapshots(ofRoot: root, keys: keys, on: $0) }
        return Self.placed(found, for: objectIDs, keys: keys).compactMap { $0 }
    }

    /// The rows read for a batch of IDs of one entity and store (with `keys`, their keys), each
    /// at its ID's position — `nil` where no row was read, or only a row of another entity of
    /// the table (not the object asked for).
    package static func placed(_ found: [StoreSnapshot], for objectIDs: [ManagedObjectID], keys: [Int64]) -> [StoreSnapshot?] {
        var placed = [StoreSnapshot?](repeating: nil, count: objectIDs.count)
        var positions: [Int64: Int] = [:]
        let consecutive = KeyRange(keys) != nil
        if !consecutive {
            positions.reserveCapacity(keys.count)
            for (position, key) in keys.enumerated() where positions.updateValue(position, forKey: key) != nil {
                // The same ID twice: each place gets its row, as in the general path.
                var byID: [ManagedObjectID: StoreSnapshot] = [:]
                for snapshot in found { byID[snapshot.objectID] = snapshot }
                return objectIDs.map { byID[$0] }
            }
        }
        for snapshot in found {
            guard let key = snapshot.objectID.primaryKey else { continue }
            let position = consecutive ? Int(key - keys[0]) : positions[key]
            // A row of a sub-entity is not the object asked for (as in the general path).
            if let position, position >= 0, position < placed.count, snapshot.objectID == objectIDs[position] {
                placed[position] = snapshot
            }
        }
        return placed
    }

    /// The rows with `keys` of the table of root entity `root`, in one query (a range of
    /// `Z_PK` when the keys are consecutive, as a batch of a table read in key order is).
    package func snapshots(ofRoot root: String, keys: [Int64], on connection: Connection) throws -> [StoreSnapshot] {
        let query = try snapshotQuery(ofRoot: root, keys: keys)
        return try connection.collect(query.sql, query.bindings) { try query.snapshot(from: $0) }
    }

    /// The statement reading the rows with `keys` of the table of root entity `root` (a range of
    /// `Z_PK` when the keys are consecutive), and how its rows become snapshots.
    package func snapshotQuery(ofRoot root: String, keys: [Int64]) throws -> SnapshotQuery {
        let table = try schema.table(for: root)
        let layout = try rows.layout(for: root)
        let select = "SELECT \(layout.columns) FROM \(table.table) t0 WHERE t0.Z_PK "
        if let range = KeyRange(keys) {
            let sql = select + "BETWEEN \(dialect.parameter(1, declaredType: nil)) AND \(dialect.parameter(2, declaredType: nil))"
            return SnapshotQuery(sql: sql, bindings: [.integer(range.first), .integer(range.last)], rows: rows, layout: layout, external: externalBinaryReader)
        }
        let sql = select + dialect.isAmongKeys(dialect.parameter(1, declaredType: nil))
        return SnapshotQuery(sql: sql, bindings: [dialect.keyList(keys)], rows: rows, layout: layout, external: externalBinaryReader)
    }

    /// The saved snapshot of row `key` of `entity`, read on `connection` (inside its transaction).
    package func snapshot(in connection: Connection, key: Int64, entity: String) throws -> StoreSnapshot? {
        let table = try schema.table(for: entity)
        let layout = try rows.layout(for: entity, includesSubentities: false)
        let sql = "SELECT \(layout.columns) FROM \(table.table) t0 WHERE t0.Z_PK = \(dialect.parameter(1, declaredType: nil)) AND t0.Z_ENT = \(dialect.parameter(2, declaredType: nil))"
        let rows = rows, external = externalBinaryReader
        return try connection.collect(sql, [.integer(key), .integer(table.number)]) { try rows.snapshot(from: $0, layout: layout, external: external) }.first
    }

    /// The members of the to-many relationship read in one query (from its join table or the destination's
    /// foreign key), by position for ordered ones, else by key; empty for another store's ID and for a
    /// transient relationship (which the store never holds).
    public func objectIDs(forRelationship name: String, of objectID: ManagedObjectID) throws -> [ManagedObjectID] {
        guard objectID.storeIdentifier == identifier, let key = objectID.primaryKey,
            !isTransientRelationship(name, of: objectID.entityName)
        else { return [] }
        let storage = try toManyStorage(name, of: objectID.entityName)
        let rows = rows
        return try read { connection in
            try connection.collect(membersQuery(storage), [dialect.keyList([key])]) { rows.objectID(from: $0) }
        }
    }

    /// The members of a to-many relationship of many objects, one query per entity among them.
    public func objectIDs(forRelationship name: String, ofObjects objectIDs: [ManagedObjectID]) throws -> [ManagedObjectID: [ManagedObjectID]] {
        var byEntity: [String: [Int64: ManagedObjectID]] = [:]
        for id in objectIDs where id.storeIdentifier == identifier && !isTransientRelationship(name, of: id.entityName) {
            if let key = id.primaryKey { byEntity[id.entityName, default: [:]][key] = id }
        }
        var result: [ManagedObjectID: [ManagedObjectID]] = [:]
        let rows = rows
        for (entityName, owners) in byEntity {
            let storage = try toManyStorage(name, of: entityName)
            let pairs = try read { connection in
                try connection.collect(membersQuery(storage), [dialect.keyList(Array(owners.keys))]) { row in
                    rows.objectID(from: row).map { (member: $0, owner: row.int64(at: 2)) }
                }
            }
            for pair in pairs {
                if let owner = owners[pair.owner] { result[owner, default: []].append(pair.member) }
            }
        }
        return result
    }

    /// Whether `name` is a transient relationship of the entity: the store holds no members for it.
    private func isTransientRelationship(_ name: String, of entityName: String) -> Bool {
        model.entitiesByName[entityName]?.relationshipsByName[name]?.isTransient == true
    }

    /// The request's prefetch key paths, each cut before its first transient relationship (held
    /// in memory only, it has nothing to read); a path that starts with one is dropped.
    private func storedPrefetchPaths(of request: StoreFetchRequest) -> [String] {
        request.relationshipKeyPathsForPrefetching.compactMap { path in
            var entity = model.entitiesByName[request.entityName]
            var kept: [Substring] = []
            for component in path.split(separator: ".") {
                if let relationship = entity?.relationshipsByName[String(component)] {
                    if relationship.isTransient { break }
                    entity = relationship.destinationEntity
                } else {
                    entity = nil   // not a relationship: the prefetcher reports it
                }
                kept.append(component)
            }
            return kept.isEmpty ? nil : kept.joined(separator: ".")
        }
    }

    private func toManyStorage(_ name: String, of entityName: String) throws -> ToManyStorage {
        guard let storage = try schema.table(for: entityName).toMany[name] else {
            throw ModelError(.unknownKey, entity: entityName, key: name, "\(entityName) has no to-many relationship \(name)")
        }
        return storage
    }

    /// The members of a to-many relationship of the owners whose keys are bound to the first
    /// parameter as a key list — ``SQLSchema/membersQuery(_:ownerTest:memberColumns:)``.
    package func membersQuery(_ storage: ToManyStorage, memberColumns: [String] = ["t0.Z_PK", "t0.Z_ENT"]) -> String {
        schema.membersQuery(storage, ownerTest: dialect.isAmongKeys(dialect.parameter(1, declaredType: nil)), memberColumns: memberColumns)
    }

    /// The shared prefetcher reading through `connection` (inside the fetch's read).
    package func prefetcher(on connection: Connection) -> Prefetcher {
        let rows = rows, external = externalBinaryReader
        return Prefetcher(
            schema: schema, rows: rows, cache: prefetched,
            members: { storage, layout, owners in
                let ownerPosition = layout.selectList.count
                return try connection.collect(self.membersQuery(storage, memberColumns: layout.selectList), [self.dialect.keyList(owners)]) { row in
                    try rows.snapshot(from: row, layout: layout, external: external).map { (member: $0, owner: row.int64(at: ownerPosition)) }
                }
            },
            rowsByKey: { root, keys in try self.snapshots(ofRoot: root, keys: keys, on: connection) })
    }
}
