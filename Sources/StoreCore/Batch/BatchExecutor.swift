import Foundation

/// Runs a batch request on any store through its other methods: fetch what the request selects,
/// work out the changes (delete rules included) and save them as one change set, which the
/// store applies entirely or not at all (and records as one history transaction).
///
/// Atomic stores run batch requests this way (their whole graph is in memory anyway), and so does
/// any store that does not implement ``PersistentStore/execute(_:)-(StoreBatchRequest)`` itself.
///
/// For example:
///
/// ```swift
/// let result = try BatchExecutor(store: store, request: request).run()
/// ```
public struct BatchExecutor {
    let store: any PersistentStore
    let request: StoreBatchRequest
    private var model: ManagedObjectModel { request.model }

    /// An executor that runs `request` on `store` through the store's fetch and save methods.
    public init(store: any PersistentStore, request: StoreBatchRequest) {
        self.store = store
        self.request = request
    }

    /// Runs the request: fetches what it selects, works out the changes (delete rules included) and
    /// saves them in one change set.
    /// - Returns: The count, and the IDs of the objects inserted, updated (by the request or by
    ///   nullify rules) and deleted.
    /// - Throws: What the store throws; for an insert, `ObjectValidationError` for a bad row and
    ///   `ModelError` for an unknown attribute or entity; for a delete, `ObjectValidationError` with
    ///   `deleteDenied` when a deny rule refuses it. Nothing is saved when it throws.
    public func run() throws -> StoreBatchResult {
        switch request.operation {
        case .insert(let insert): try self.insert(insert)
        case .update(let update): try self.update(update)
        case .delete(let target): try delete(target)
        }
    }

    private func emptyChangeSet() -> StoreChangeSet {
        var changes = StoreChangeSet()
        changes.contextName = request.contextName
        changes.transactionAuthor = request.transactionAuthor
        return changes
    }

    private func snapshots(of entity: EntityDescription, predicate: StorePredicate? = nil) throws -> [StoreSnapshot] {
        var fetch = StoreFetchRequest(entityName: entity.name, resultType: .managedObject)
        fetch.predicate = predicate
        return try snapshots(for: store.execute(fetch))
    }

    private func snapshots(for result: StoreFetchResult) throws -> [StoreSnapshot] {
        switch result {
        case .snapshots(let snapshots): snapshots
        case .objectIDs(let ids): try store.snapshots(for: ids)
        case .count, .dictionaries: []
        }
    }

    // MARK: Insert

    private func insert(_ insert: StoreBatchRequest.Insert) throws -> StoreBatchResult {
        var rows: [[StoreValue]] = []
        while let row = try insert.nextRow() { rows.append(row) }
        let entity = try model.entity(named: insert.entityName)
        var changes = emptyChangeSet()
        var result = StoreBatchResult()
        // Existing objects by their constrained values, for upserts.
        let constraints = Self.uniquenessConstraints(of: entity)
        var existing: [[StoreValue]: StoreSnapshot] = [:]
        var pending: [[StoreValue]: Int] = [:]   // constrained values → index in changes.inserted
        if insert.onConflict != .fail, !constraints.isEmpty {
            for (owner, constraint) in constraints {
                for snapshot in try snapshots(of: owner) {
                    existing[[.string(owner.name)] + constraint.map { snapshot[$0] }] = snapshot
                }
            }
        }
        let ids = try store.newObjectIDs(forEntityNames: Array(repeating: entity.name, count: rows.count))
        var updatedByID: [ManagedObjectID: Int] = [:]
        let indexes = insert.attributes.compactMap { entity.propertyIndexes[$0.name] }
        guard indexes.count == insert.attributes.count else {
            throw ModelError(.unknownKey, entity: entity.name, "the batch insert names an attribute \(entity.name) does not have")
        }
        for (row, id) in zip(rows, ids) {
            var values = StoreSnapshot(objectID: id, version: 0, entity: entity)
            for (index, value) in zip(indexes, row) { values.setValue(value, at: index) }
            if insert.onConflict != .fail, !constraints.isEmpty {
                let keys = constraints.map { owner, constraint in [StoreValue.string(owner.name)] + constraint.map { values[$0] } }
                if let stored = keys.lazy.compactMap({ existing[$0] }).first {
                    guard insert.onConflict == .updateStoredObject else { continue }  // kept as stored: not counted
                    result.count += 1
                    var update = StoreSnapshot.partial(objectID: stored.objectID, version: stored.version, entity: stored.entity)
                    for index in indexes { update[index] = values[index] }
                    if let index = updatedByID[stored.objectID] {
                        changes.updated[index] = update
                    } else {
                        updatedByID[stored.objectID] = changes.updated.count
                        changes.updated.append(update)
                    }
                    continue
                }
                if let index = keys.lazy.compactMap({ pending[$0] }).first {
                    // A later row with the same constrained values replaces the earlier one (each row
                    // that writes is counted, as SQLite's upsert counts it).
                    guard insert.onConflict == .updateStoredObject else { continue }
                    result.count += 1
                    changes.inserted[index] = StoreSnapshot(
                        objectID: changes.inserted[index].objectID, version: 0, entity: entity, values: values.values)
                    continue
                }
                for key in keys where !key.dropFirst().allSatisfy(\.isNull) { pending[key] = changes.inserted.count }
            }
            changes.inserted.append(values)
            result.count += 1
        }
        try store.save(changes)
        result.inserted = changes.inserted.map(\.objectID)
        result.updated = changes.updated.map(\.objectID)
        return result
    }

    /// The uniqueness constraints an entity's objects must meet (its own and its ancestors').
    static func uniquenessConstraints(of entity: EntityDescription) -> [(owner: EntityDescription, constraint: [String])] {
        var result: [(EntityDescription, [String])] = []
        var current: EntityDescription? = entity
        while let owner = current {
            for constraint in owner.uniquenessConstraints { result.append((owner, constraint)) }
            current = owner.superentity
        }
        return result
    }

    // MARK: Update

    private func update(_ update: BatchUpdateRequest) throws -> StoreBatchResult {
        let entity = try model.entity(named: update.entityName)
        let attributes = try BatchUpdateCheck.attributes(of: update, entity: entity)
        var fetch = StoreFetchRequest(entityName: entity.name, resultType: .managedObject)
        fetch.predicate = update.predicate
        fetch.includesSubentities = update.includesSubentities
        let matches = try snapshots(for: store.execute(fetch))
        var changes = emptyChangeSet()
        let evaluator = PredicateEvaluator()
        let resolve: (ManagedObjectID) throws -> StoreSnapshot? = { [store] id in try store.snapshot(for: id) }
        for snapshot in matches {
            var change = StoreSnapshot.partial(objectID: snapshot.objectID, version: snapshot.version, entity: snapshot.entity)
            let source = SnapshotSource(snapshot: snapshot, model: model, resolve: resolve)
            for (name, expression) in update.propertiesToUpdate.sorted(by: { $0.key < $1.key }) {
                guard let attribute = attributes[name] else { continue }
                let value = try evaluator.value(of: expression, on: source).storeValue
                change[name] = try BatchUpdateCheck.checked(value, for: attribute, entity: entity, objectID: snapshot.objectID)
            }
            changes.updated.append(change)
        }
        try store.save(changes)
        var result = StoreBatchResult(count: changes.updated.count)
        result.updated = changes.updated.map(\.objectID)
        return result
    }

    // MARK: Delete

    private func delete(_ target: BatchDeleteRequest.Target) throws -> StoreBatchResult {
        let selected: [StoreSnapshot]
        switch target {
        case .fetchRequest(var fetch):
            fetch.resultType = .managedObject
            selected = try snapshots(for: store.execute(fetch))
        case .objectIDs(let ids):
            selected = try store.snapshots(for: ids.filter { $0.storeIdentifier == store.identifier })
        }
        var plan = DeletionPlan(model: model, store: store)
        try plan.add(selected)
        try plan.checkDenyRules()
        var changes = emptyChangeSet()
        changes.deleted = plan.deleted.map { StoreSnapshot.partial(objectID: $0.objectID, version: $0.version, entity: $0.entity) }
        changes.updated = try plan.nullifications()
        try store.save(changes)
        var result = StoreBatchResult(count: changes.deleted.count)
        result.deleted = changes.deleted.map(\.objectID)
        result.updated = changes.updated.map(\.objectID)
        return result
    }
}

/// The objects a batch delete removes (the selected ones and their cascades) and the changes
/// nullify rules make to the objects left.
struct DeletionPlan {
    let model: ManagedObjectModel
    let store: any PersistentStore
    private(set) var deleted: [StoreSnapshot] = []
    private var deletedIDs: Set<ManagedObjectID> = []

    init(model: ManagedObjectModel, store: any PersistentStore) {
        self.model = model
        self.store = store
    }

    /// Adds objects and, following cascade rules, the objects they take with them.
    mutating func add(_ snapshots: [StoreSnapshot]) throws {
        var queue = snapshots
        while let snapshot = queue.popLast() {
            guard deletedIDs.insert(snapshot.objectID).inserted else { continue }
            deleted.append(snapshot)
            let entity = try model.entity(named: snapshot.objectID.entityName)
            for relationship in entity.relationships where relationship.deleteRule == .cascade {
                let targets = try destinations(of: snapshot, through: relationship).filter { !deletedIDs.contains($0) }
                queue += try store.snapshots(for: targets)
            }
        }
    }

    /// Refuses the request when a deny relationship holds an object that is not deleted with it.
    func checkDenyRules() throws {
        for snapshot in deleted {
            let entity = try model.entity(named: snapshot.objectID.entityName)
            for relationship in entity.relationships where relationship.deleteRule == .deny {
                if let holder = try destinations(of: snapshot, through: relationship).first(where: { !deletedIDs.contains($0) }) {
                    throw ObjectValidationError(
                        .deleteDenied, objectID: snapshot.objectID, entity: entity.name, key: relationship.name,
                        "cannot delete the object: relationship '\(relationship.name)' has the deny rule and still holds \(holder); nothing was deleted")
                }
            }
        }
    }

    /// The updates that remove the deleted objects from the inverse relationships of the objects left.
    func nullifications() throws -> [StoreSnapshot] {
        var updates: [ManagedObjectID: StoreSnapshot] = [:]
        var order: [ManagedObjectID] = []
        for snapshot in deleted {
            let entity = try model.entity(named: snapshot.objectID.entityName)
            for relationship in entity.relationships {
                guard let inverse = relationship.inverseRelationship, relationship.deleteRule != .noAction else { continue }
                for id in try destinations(of: snapshot, through: relationship) where !deletedIDs.contains(id) {
                    guard var update = try updates[id] ?? store.snapshot(for: id) else { continue }
                    if updates[id] == nil { order.append(id) }
                    if inverse.isToMany {
                        let current = try update.toMany(forKey: inverse.name) ?? store.objectIDs(forRelationship: inverse.name, of: id)
                        update.setToMany(current.filter { $0 != snapshot.objectID }, forKey: inverse.name)
                    } else if update[inverse.name] == .objectID(snapshot.objectID) {
                        update[inverse.name] = .null
                    }
                    updates[id] = update
                }
            }
        }
        // Only the relationships that changed go into the update.
        return try order.compactMap { id in
            guard let update = updates[id], let stored = try store.snapshot(for: id) else { return nil }
            let original = stored.laidOut(as: update.entity)
            var change = StoreSnapshot.partial(objectID: id, version: original.version, entity: update.entity)
            for (index, value) in update.heldValues where original[index] != value { change[index] = value }
            for (index, ids) in update.toManyRelationships where original.toMany(at: index) != ids { change.setToMany(ids, at: index) }
            return change
        }
    }

    private func destinations(of snapshot: StoreSnapshot, through relationship: RelationshipDescription) throws -> [ManagedObjectID] {
        if relationship.isToMany {
            return try snapshot.toMany(forKey: relationship.name) ?? store.objectIDs(forRelationship: relationship.name, of: snapshot.objectID)
        }
        if case .objectID(let id) = snapshot[relationship.name] { return [id] }
        return []
    }
}
