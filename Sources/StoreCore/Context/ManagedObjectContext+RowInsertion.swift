import Foundation

/// New objects that a root context's next save writes straight into its store as snapshots, in
/// the same store transaction as the context's own changes, with no managed object made for them:
/// for code that moves many rows and must move them atomically with a context's changes (the sync
/// engine writes pulled objects, their identity rows and its token this way).
///
/// The rows get their permanent IDs inside the save's transaction (the builder receives them, in
/// the order of ``entityNames``); persistent history records them as inserts of that transaction;
/// the save's notifications (and contexts that merge saves automatically, fetched results
/// controllers and live queries) see them among the inserted objects. They are not validated and
/// get no default values: the builder gives complete snapshots, as a store returns them. Their
/// entities may have no relationships (nothing would keep inverses in step), no uniqueness
/// constraints and no derived attributes; the save refuses others with `unsupportedRequest`.
///
/// For example:
///
/// ```swift
/// let rows = StoreRowInsertion(entityNames: ["Item", "Item"]) { ids in
///     try ids.map { id in
///         var snapshot = StoreSnapshot(objectID: id, version: 1, entity: try model.entity(named: "Item"))
///         snapshot["name"] = .string("item \(id.primaryKey ?? 0)")
///         return snapshot
///     }
/// }
/// context.insertRowsWithNextSave(rows)
/// try context.save()
/// ```
package struct StoreRowInsertion {
    /// The entity of each new row, in order.
    package var entityNames: [String]
    /// Makes the rows' snapshots from their permanent IDs (one per entity name, in order), inside
    /// the save's store transaction. It may leave IDs out (their keys are then never used): a
    /// caller that learns how many rows it needs only from the keys asks for as many as it may need.
    package var makeSnapshots: ([ManagedObjectID]) throws -> [StoreSnapshot]

    /// Rows of these entities (one name per row) whose snapshots `makeSnapshots` makes from their IDs.
    package init(entityNames: [String], makeSnapshots: @escaping ([ManagedObjectID]) throws -> [StoreSnapshot]) {
        self.entityNames = entityNames
        self.makeSnapshots = makeSnapshots
    }

    /// Whether rows of `entity` can be written this way: no relationships, no uniqueness
    /// constraints, no derived attributes, not abstract.
    package static func accepts(_ entity: EntityDescription) -> Bool {
        !entity.isAbstract && entity.relationships.isEmpty && entity.uniquenessConstraints.isEmpty && !entity.attributes.contains(where: \.isDerived)
    }
}

extension ManagedObjectContext {
    /// Adds rows that the next save of this root context writes with its own changes, in one
    /// store transaction (see ``StoreRowInsertion``). A failed save keeps them for the next one;
    /// ``rollback()`` and ``reset()`` drop them.
    package func insertRowsWithNextSave(_ rows: StoreRowInsertion) {
        checkQueue(accessing: nil)
        guard !rows.entityNames.isEmpty else { return }
        pendingRowInsertions.append(rows)
    }

    /// Whether rows wait for the next save.
    package var hasPendingRowInsertions: Bool { !pendingRowInsertions.isEmpty }

    /// Checks the waiting rows' entities before anything is written.
    func checkPendingRowInsertions() throws {
        guard !pendingRowInsertions.isEmpty else { return }
        guard parent == nil else {
            throw StoreError(.unsupportedRequest, "rows written with a save go to a store: a child context cannot write them")
        }
        guard let model = managedObjectModel else { throw StoreError(.noStores, "\(self) has no persistent store coordinator") }
        var checked: Set<String> = []
        for rows in pendingRowInsertions {
            for name in rows.entityNames where checked.insert(name).inserted {
                let entity = try model.entity(named: name)
                guard StoreRowInsertion.accepts(entity) else {
                    throw StoreError(.unsupportedRequest, "rows written with a save may not have relationships, uniqueness constraints or derived attributes; entity \(name) has some")
                }
            }
        }
    }

    /// The waiting rows' entity names, in order.
    var pendingRowEntityNames: [String] { pendingRowInsertions.flatMap(\.entityNames) }

    /// The waiting rows' snapshots, made from their permanent IDs (at most as many as ``pendingRowEntityNames``).
    func makePendingRowSnapshots(_ ids: ArraySlice<ManagedObjectID>) throws -> [StoreSnapshot] {
        var snapshots: [StoreSnapshot] = []
        var start = ids.startIndex
        for rows in pendingRowInsertions {
            let mine = Array(ids[start..<start + rows.entityNames.count])
            start += rows.entityNames.count
            let made = try rows.makeSnapshots(mine)
            // Each snapshot takes the next ID it was given or a later one (an ID left out stays unused).
            var unused = mine.makeIterator()
            for snapshot in made {
                var matched = false
                while !matched, let id = unused.next() { matched = id == snapshot.objectID }
                guard matched else {
                    throw StoreError(.unsupportedRequest, "rows written with a save must be snapshots of the IDs given, in their order, each at most once")
                }
            }
            snapshots += made
        }
        return snapshots
    }
}
