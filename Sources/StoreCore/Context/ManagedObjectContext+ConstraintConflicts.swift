import Foundation

extension ManagedObjectContext {
    // MARK: Finding conflicts

    /// Whether this context's saves resolve constraint conflicts before writing: a root context
    /// whose merge policy is not the plain ``MergePolicy/error`` (a subclass decides itself).
    var resolvesConstraintConflictsBeforeSaving: Bool {
        parent == nil && !(mergePolicy.mergeType == .error && type(of: mergePolicy) == MergePolicy.self)
    }

    /// The new objects — and the stored objects whose constrained attributes this save changes —
    /// that share a uniqueness constraint's values with a stored object or with each other. One
    /// store fetch per constraint and 1,000 distinct values; values with a nil part never
    /// conflict (as in SQL, and in Core Data's SQLite store, whose constraints are unique indexes).
    func findConstraintConflicts() throws -> [ConstraintConflict] {
        var groups: [String: ConstraintGroup] = [:]
        var order: [String] = []
        var constraintsByEntity: [ObjectIdentifier: [ConstraintGroup.Key]] = [:]
        func collect(_ object: ManagedObject, onlyChangedKeys: Bool) {
            let entity = object.entity
            let keys = constraintsByEntity[ObjectIdentifier(entity)] ?? {
                let keys = ConstraintGroup.Key.keys(of: entity)
                constraintsByEntity[ObjectIdentifier(entity)] = keys
                return keys
            }()
            for key in keys {
                if onlyChangedKeys, !key.isChanged(in: object) { continue }
                guard let values = key.values(of: object) else { continue }
                if groups[key.name] == nil { order.append(key.name) }
                groups[key.name, default: ConstraintGroup(key: key)].add(object, values: values)
            }
        }
        for object in insertedSet.values where !object.state.isDeleted { collect(object, onlyChangedKeys: false) }
        for object in updatedSet.values where !object.state.isDeleted { collect(object, onlyChangedKeys: true) }
        var conflicts: [ConstraintConflict] = []
        for name in order {
            guard let group = groups[name] else { continue }
            let stored = try storedRows(for: group)
            for values in group.valueOrder {
                let objects = group.objects[values] ?? []
                // An updated object's own row is no conflict with itself.
                let row = stored[values].flatMap { row in objects.contains { $0.objectID == row.objectID } ? nil : row }
                guard row != nil || objects.count > 1 else { continue }
                conflicts.append(ConstraintConflict(
                    entity: group.key.owner.name, constraint: group.key.constraint,
                    constraintValues: Dictionary(uniqueKeysWithValues: zip(group.key.constraint, values.all)),
                    databaseObjectID: row?.objectID, databaseSnapshot: row, conflictingObjectIDs: objects.map(\.objectID)
                ))
            }
        }
        return conflicts
    }

    /// The stored rows of the constraint's entity holding any of the group's values, by values —
    /// leaving out rows this save deletes or moves to other values.
    private func storedRows(for group: ConstraintGroup) throws -> [ConstraintValues: StoreSnapshot] {
        let key = group.key
        var found: [ConstraintValues: StoreSnapshot] = [:]
        let chunkSize = key.constraint.count == 1 ? 1_000 : 200
        var start = 0
        while start < group.valueOrder.count {
            let chunk = group.valueOrder[start..<min(start + chunkSize, group.valueOrder.count)]
            start += chunkSize
            var request = StoreFetchRequest(entityName: key.owner.name, resultType: .managedObject)
            request.includesPendingChanges = false
            request.predicate = key.predicate(matching: chunk)
            let snapshots: [StoreSnapshot]
            switch try parentStore().fetchForChild(request) {
            case .snapshots(let rows): snapshots = rows
            case .objectIDs(let ids): snapshots = ids.compactMap { registeredOrFaultObject(for: $0)?.currentSnapshot() }
            case .count, .dictionaries: snapshots = []
            }
            for snapshot in snapshots {
                guard let entity = managedObjectModel?.entitiesByName[snapshot.objectID.entityName],
                    let values = key.values(of: snapshot.laidOut(as: entity), in: entity)
                else { continue }
                if let object = registered[snapshot.objectID] {
                    if object.state.isDeleted { continue }
                    if object.state.isUpdated, key.values(of: object) != values { continue }
                }
                found[values] = snapshot
            }
        }
        return found
    }

    // MARK: Resolving conflicts

    /// Applies a merge policy type to constraint conflicts
    /// (``MergePolicy/resolve(constraintConflicts:in:)``). For each conflict one object
    /// survives: the stored object — which the first new object becomes, when the stored object
    /// is not already registered here — or else the first conflicting object (a stored object
    /// this save moved onto the values before a new one). Its attributes take the last
    /// conflicting object's values (object-trump, overwrite) or keep the stored ones (store-trump,
    /// rollback); relationships are merged from every conflicting object; the others are deleted.
    func applyConstraintResolution(_ conflicts: [ConstraintConflict], type: MergePolicy.MergeType) throws {
        let objectWins = type == .mergeByPropertyObjectTrump || type == .overwrite
        for conflict in conflicts {
            let objects = conflict.conflictingObjectIDs.compactMap { registered[$0] }.filter { !$0.state.isDeleted }
            guard let first = objects.first, let last = objects.last else { continue }
            guard let owner = managedObjectModel?.entitiesByName[conflict.entity] else { continue }
            let winningValues = objectWins ? Self.attributeValues(of: last, in: owner) : nil
            var survivor = first
            var losers = Array(objects.dropFirst())
            if let storedID = conflict.databaseObjectID, let stored = conflict.databaseSnapshot {
                if registered[storedID] == nil, first.state.isInserted, first.entity.name == storedID.entityName {
                    become(first, storedID: storedID, stored: stored)
                } else if let existing = registeredOrFaultObject(for: storedID) {
                    existing.willAccess()
                    survivor = existing
                    losers = objects
                }
            }
            if let winningValues {
                for (index, value) in winningValues where survivor.values[index] != value {
                    survivor.setAttributeValue(value, at: index)
                }
            }
            for loser in losers {
                mergeRelationships(of: loser, into: survivor)
                delete(loser)
            }
        }
        processPendingChanges()
    }

    /// The stored attributes `owner` declares (or inherits), by index, as `object` holds them.
    private static func attributeValues(of object: ManagedObject, in owner: EntityDescription) -> [(Int, StoreValue)] {
        owner.attributes.compactMap { attribute in
            guard !attribute.isTransient, let index = owner.propertyIndexes[attribute.name] else { return nil }
            return (index, object.values[index])
        }
    }

    /// Turns a new object into the stored object it duplicates: it takes the stored ID, values
    /// and version, and keeps the relationships it was given (added to the stored ones).
    private func become(_ object: ManagedObject, storedID: ManagedObjectID, stored: StoreSnapshot) {
        let layout = object.entity.layout
        let toOne = layout.toOneIndexes.map { ($0, object.toOneObject(at: $0)) }
        let toMany = layout.toManyIndexes.map { ($0, object.toManyObjects(at: $0).objects) }
        insertedSet.remove(object)
        object.state.isInserted = false
        pendingChanges.inserted[ObjectIdentifier(object)] = nil
        reassign(object, to: storedID)
        object.load(stored)
        for (index, destination) in toOne {
            guard let destination, object.toOneObject(at: index) !== destination else { continue }
            object.setToOne(destination, at: index)
        }
        for (index, members) in toMany where !members.isEmpty {
            let inverse = (object.entity.properties[index] as? RelationshipDescription)?.inverseRelationship
            for member in members { object.addToToMany(member, at: index, inverse: inverse) }
        }
    }

    /// Moves a losing duplicate's relationships to the survivor: to-many members join the
    /// survivor's, a to-one destination is taken where the survivor has none.
    private func mergeRelationships(of loser: ManagedObject, into survivor: ManagedObject) {
        let layout = loser.entity.layout
        for index in layout.toOneIndexes {
            guard let destination = loser.toOneObject(at: index) else { continue }
            loser.setToOne(nil, at: index)
            guard let target = survivor.entity.propertyIndexes[loser.entity.properties[index].name],
                survivor.toOneObject(at: target) == nil
            else { continue }
            survivor.setToOne(destination, at: target)
        }
        for index in layout.toManyIndexes {
            let members = loser.toManyObjects(at: index).objects
            guard !members.isEmpty else { continue }
            loser.setToMany([], at: index)
            guard let target = survivor.entity.propertyIndexes[loser.entity.properties[index].name],
                let relationship = survivor.entity.properties[target] as? RelationshipDescription
            else { continue }
            for member in members { survivor.addToToMany(member, at: target, inverse: relationship.inverseRelationship) }
        }
    }
}

/// The new objects of one uniqueness constraint, grouped by their values in insertion order.
struct ConstraintGroup {
    /// A constraint and where its keys are in the entities that carry it.
    struct Key {
        let owner: EntityDescription
        let constraint: [String]
        /// `Owner:key1,key2`.
        let name: String

        init(owner: EntityDescription, constraint: [String]) {
            self.owner = owner
            self.constraint = constraint
            name = owner.name + ":" + constraint.joined(separator: ",")
        }

        /// The constraints an entity's objects carry, its own and inherited, on attributes only
        /// (relationship keys are left to the store's check).
        static func keys(of entity: EntityDescription) -> [Key] {
            BatchExecutor.uniquenessConstraints(of: entity).compactMap { owner, constraint in
                guard constraint.allSatisfy({ owner.attributesByName[$0] != nil }) else { return nil }
                return Key(owner: owner, constraint: constraint)
            }
        }

        /// Whether this save changes one of the constraint's attributes of `object`.
        func isChanged(in object: ManagedObject) -> Bool {
            constraint.contains { key in object.entity.propertyIndexes[key].map(object.changedProperties.contains) ?? false }
        }

        /// The object's values for the constraint; `nil` when one is nil (no conflict then).
        func values(of object: ManagedObject) -> ConstraintValues? {
            if constraint.count == 1, let key = constraint.first {
                guard let index = object.entity.propertyIndexes[key] else { return nil }
                let value = object.values[index]
                return value.isNull ? nil : .one(value)
            }
            var values: [StoreValue] = []
            values.reserveCapacity(constraint.count)
            for key in constraint {
                guard let index = object.entity.propertyIndexes[key] else { return nil }
                let value = object.values[index]
                if value.isNull { return nil }
                values.append(value)
            }
            return .many(values)
        }

        /// A stored row's values for the constraint.
        func values(of snapshot: StoreSnapshot, in entity: EntityDescription) -> ConstraintValues? {
            var values: [StoreValue] = []
            for key in constraint {
                guard let index = entity.propertyIndexes[key] else { return nil }
                let value = snapshot[index]
                if value.isNull { return nil }
                values.append(value)
            }
            return values.count == 1 ? .one(values[0]) : .many(values)
        }

        /// `key IN {…}` for one key; `(k1 == a AND k2 == b) OR …` for several.
        func predicate(matching tuples: ArraySlice<ConstraintValues>) -> StorePredicate {
            if constraint.count == 1, let key = constraint.first {
                return .comparison(StoreComparison(.keyPath(key), .in, .aggregate(tuples.compactMap { $0.all.first.map(StoreExpression.constant) })))
            }
            return .or(tuples.map { values in
                .and(zip(constraint, values.all).map { .comparison(StoreComparison(.keyPath($0), .equalTo, .constant($1))) })
            })
        }
    }

    let key: Key
    private(set) var objects: [ConstraintValues: [ManagedObject]] = [:]
    private(set) var valueOrder: [ConstraintValues] = []

    init(key: Key) { self.key = key }

    /// Adds an object under its values: new objects in insertion order, after any stored object
    /// this save moved onto the same values (so that one survives a resolution).
    mutating func add(_ object: ManagedObject, values: ConstraintValues) {
        if objects[values] == nil { valueOrder.append(values) }
        if object.state.isInserted {
            objects[values, default: []].append(object)
        } else {
            objects[values, default: []].insert(object, at: 0)
        }
    }
}

/// One object's values for a constraint: a single value (most constraints have one key, and
/// this needs no array per object) or several.
enum ConstraintValues: Hashable {
    case one(StoreValue)
    case many([StoreValue])

    var all: [StoreValue] {
        switch self {
        case .one(let value): [value]
        case .many(let values): values
        }
    }
}
