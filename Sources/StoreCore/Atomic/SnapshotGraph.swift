import Foundation

/// A whole object graph held as snapshots: the engine of the atomic stores (in-memory, XML,
/// binary). Fetches are evaluated in memory; a change set is checked completely (versions,
/// existence, uniqueness constraints) before any of it is applied.
package struct SnapshotGraph: Sendable {
    package let model: ManagedObjectModel
    var tables: [String: EntityTable] = [:]
    /// What the graph computes on save (see `computeDerivedAttributes(after:)`).
    var derivedAttributes: DerivedAttributePlan { model.derivedAttributes }

    /// The snapshots of one entity (not its sub-entities) in insertion order; deleted rows
    /// leave holes that are compacted when they outnumber the live ones.
    struct EntityTable: Sendable {
        var rows: [StoreSnapshot?] = []
        var positions: [ManagedObjectID: Int] = [:]
        var live: Int { positions.count }

        mutating func insert(_ snapshot: StoreSnapshot) {
            positions[snapshot.objectID] = rows.count
            rows.append(snapshot)
        }

        /// Makes room for `count` more rows at once (growing at least twofold, so that many small
        /// saves still grow the table geometrically): a large save rehashes no position twice.
        mutating func reserve(_ count: Int) {
            let needed = positions.count + count
            if positions.capacity < needed { positions.reserveCapacity(Swift.max(needed, 2 * positions.count)) }
            if rows.capacity < rows.count + count { rows.reserveCapacity(Swift.max(rows.count + count, 2 * rows.count)) }
        }

        mutating func remove(_ id: ManagedObjectID) {
            guard let position = positions.removeValue(forKey: id) else { return }
            rows[position] = nil
            if rows.count > 64 && positions.count < rows.count / 2 {
                rows = rows.filter { $0 != nil }
                for (position, row) in rows.enumerated() { if let row { positions[row.objectID] = position } }
            }
        }
    }

    package init(model: ManagedObjectModel) { self.model = model }

    /// The number of objects in the graph.
    package var count: Int { tables.values.reduce(0) { $0 + $1.live } }

    package subscript(id: ManagedObjectID) -> StoreSnapshot? {
        guard let table = tables[id.entityName], let position = table.positions[id] else { return nil }
        return table.rows[position]
    }

    /// Every snapshot, entity by entity.
    package var allSnapshots: [StoreSnapshot] {
        tables.keys.sorted().flatMap { tables[$0]?.rows.compactMap { $0 } ?? [] }
    }

    /// Adds snapshots read from a file (no checks beyond duplicate IDs).
    package mutating func load(_ snapshots: [StoreSnapshot]) {
        loadUnique(snapshots.filter { self[$0.objectID] == nil })
    }

    /// Adds snapshots whose IDs are known to be new and distinct.
    mutating func loadUnique(_ snapshots: [StoreSnapshot]) {
        for snapshot in snapshots {
            tables[snapshot.objectID.entityName, default: EntityTable()].insert(snapshot)
        }
    }

    /// The rows of one entity read from a file, with their IDs (known to be new and distinct).
    struct LoadedTable {
        let entityName: String
        var rows: [StoreSnapshot?] = []
        var ids: [ManagedObjectID] = []
    }

    /// Adds the rows of whole entities read from a file: an entity the graph does not hold yet
    /// takes the list as its table.
    mutating func loadTables(_ loaded: [LoadedTable]) {
        for table in loaded where !table.rows.isEmpty {
            guard tables[table.entityName] == nil else {
                for case let row? in table.rows { tables[table.entityName]?.insert(row) }
                continue
            }
            var entityTable = EntityTable()
            entityTable.positions.reserveCapacity(table.ids.count)
            for (position, id) in table.ids.enumerated() { entityTable.positions[id] = position }
            entityTable.rows = table.rows
            tables[table.entityName] = entityTable
        }
    }

    // MARK: Fetching

    package func execute(_ request: StoreFetchRequest) throws -> StoreFetchResult {
        let entity = try model.entity(named: request.entityName)
        // Refused whether or not there is anything to evaluate, as on SQLite.
        try FetchRequestCheck.check(request, entity: entity)
        let names = request.includesSubentities ? entity.entityAndDescendantNames.sorted() : [entity.name]
        if request.predicate == nil, request.resultType == .count {
            let total = names.reduce(0) { $0 + (tables[$1]?.live ?? 0) }
            return .count(max(0, min(request.fetchLimit > 0 ? request.fetchLimit : .max, total - request.fetchOffset)))
        }
        let resolve: (ManagedObjectID) -> StoreSnapshot? = { self[$0] }
        return try SnapshotFetch(request: request, entity: entity, model: model, resolve: resolve)
            .run(over: names.compactMap { tables[$0]?.rows })
    }

    package func objectIDs(forRelationship name: String, of id: ManagedObjectID) -> [ManagedObjectID] {
        self[id]?.toMany(forKey: name) ?? []
    }

    // MARK: Saving

    /// Checks a change set completely, then applies it; on any error the graph is unchanged.
    package mutating func apply(_ changes: StoreChangeSet) throws {
        var conflicts: [MergeConflict] = []
        for snapshot in changes.updated + changes.deleted {
            let current = self[snapshot.objectID]
            if current?.version != snapshot.version {
                conflicts.append(MergeConflict(objectID: snapshot.objectID, expectedVersion: snapshot.version, storeVersion: current?.version ?? 0, storeSnapshot: current))
            }
        }
        if !conflicts.isEmpty { throw MergeConflictError(conflicts: conflicts) }
        try Self.forEachEntityRun(of: changes.inserted) { entityName, run in
            guard let table = tables[entityName] else { return }
            for snapshot in run where table.positions[snapshot.objectID] != nil {
                throw StoreError(.corrupt, objectID: snapshot.objectID, "an object with this ID already exists in the store")
            }
        }
        // Apply in place, remembering enough to undo if a uniqueness constraint is broken.
        var originals: [StoreSnapshot] = []
        for snapshot in changes.deleted {
            if let original = self[snapshot.objectID] { originals.append(original) }
            remove(snapshot.objectID)
        }
        for update in changes.updated {
            guard let position = tables[update.objectID.entityName]?.positions[update.objectID],
                var row = tables[update.objectID.entityName]?.rows[position]
            else { continue }
            originals.append(row)
            row.merge(update)
            row.version += 1
            tables[update.objectID.entityName]?.rows[position] = row
        }
        Self.forEachEntityRun(of: changes.inserted) { entityName, run in
            // Taken out while it grows, so the table is changed in place.
            var table = tables.removeValue(forKey: entityName) ?? EntityTable()
            table.reserve(run.count)
            for var snapshot in run {
                if snapshot.version != 1 { snapshot.version = 1 }  // a change would copy the shared snapshot
                table.insert(snapshot)
            }
            tables[entityName] = table
        }
        do {
            try checkUniqueness(touching: changes)
        } catch {
            for snapshot in changes.inserted { remove(snapshot.objectID) }
            for original in originals {
                if let position = tables[original.objectID.entityName]?.positions[original.objectID] {
                    tables[original.objectID.entityName]?.rows[position] = original
                } else {
                    load([original])
                }
            }
            throw error
        }
        computeDerivedAttributes(after: changes)
    }

    /// Calls `body` with each run of consecutive snapshots of one entity (a save lists new objects
    /// entity by entity, so a table is looked up once per run, not once per snapshot).
    private static func forEachEntityRun(
        of snapshots: [StoreSnapshot], _ body: (String, ArraySlice<StoreSnapshot>) throws -> Void
    ) rethrows {
        var start = snapshots.startIndex
        while start < snapshots.endIndex {
            let space = snapshots[start].objectID.space
            var end = start + 1
            while end < snapshots.endIndex, snapshots[end].objectID.space.matches(space) { end += 1 }
            try body(space.entityName, snapshots[start..<end])
            start = end
        }
    }

    private mutating func remove(_ id: ManagedObjectID) {
        tables[id.entityName]?.remove(id)
    }

    /// Refuses a change set that leaves two objects with equal values for a uniqueness constraint.
    private func checkUniqueness(touching changes: StoreChangeSet) throws {
        var touched = Set<String>()
        for snapshots in [changes.inserted, changes.updated] {
            Self.forEachEntityRun(of: snapshots) { entityName, _ in touched.insert(entityName) }
        }
        for entityName in touched {
            guard let entity = model.entitiesByName[entityName] else { continue }
            var constrained: [EntityDescription] = []
            var current: EntityDescription? = entity
            while let next = current {
                if !next.uniquenessConstraints.isEmpty { constrained.append(next) }
                current = next.superentity
            }
            for owner in constrained {
                let rows = owner.entityAndDescendantNames.flatMap { tables[$0]?.rows.compactMap { $0 } ?? [] }
                for constraint in owner.uniquenessConstraints {
                    var seen: [[StoreValue]: ManagedObjectID] = [:]
                    let indexes = constraint.map { owner.propertyIndexes[$0] }
                    for row in rows {
                        let key = indexes.map { index in index.map { row[$0] } ?? .null }
                        // A nil part never conflicts, as in SQL (Core Data's constraints are unique indexes).
                        if key.contains(where: \.isNull) { continue }
                        if let other = seen[key] {
                            throw ObjectValidationError(
                                .uniquenessConstraint, objectID: row.objectID, entity: owner.name, key: constraint.joined(separator: ","),
                                "another \(owner.name) (\(other)) already has \(constraint.joined(separator: ", ")) = \(key.map(\.description).joined(separator: ", ")); nothing was saved")
                        }
                        seen[key] = row.objectID
                    }
                }
            }
        }
    }
}
