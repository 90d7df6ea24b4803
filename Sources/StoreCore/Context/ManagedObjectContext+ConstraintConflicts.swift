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
    /// store fetch per constraint (``ConstraintGroup/Key/fetchSize(for:)``); values with a nil part never
    /// conflict (as in SQL, and in Core Data's SQLite store, whose constraints are unique indexes).
    func findConstraintConflicts() throws -> [ConstraintConflict] {
        var groups: [ConstraintGroup] = []
        var groupNumbers: [String: Int] = [:]
        // Per entity, its constraints with their keys' indexes in that entity and their groups:
        // names are looked up once per entity, not once per object.
        var constraintsByEntity: [ObjectIdentifier: [(placement: ConstraintGroup.Placement, group: Int)]] = [:]
        func constraints(of entity: EntityDescription) -> [(placement: ConstraintGroup.Placement, group: Int)] {
            if let known = constraintsByEntity[ObjectIdentifier(entity)] { return known }
            let found = ConstraintGroup.Key.keys(of: entity).compactMap { key -> (placement: ConstraintGroup.Placement, group: Int)? in
                guard let placement = ConstraintGroup.Placement(key: key, in: entity) else { return nil }
                let group = groupNumbers[key.name] ?? {
                    groups.append(ConstraintGroup(key: key))
                    groupNumbers[key.name] = groups.count - 1
                    return groups.count - 1
                }()
                return (placement, group)
            }
            constraintsByEntity[ObjectIdentifier(entity)] = found
            return found
        }
        // First how many objects each group gets, then each object's values into its group:
        // each group's table is made once at its full size, not grown (and rehashed) as objects
        // come, and no list of the objects and their values is kept in between.
        var counts: [Int] = []
        // The groups in the order they got their first object.
        var order: [Int] = []
        // The last entity's constraints: the changed objects mostly come in runs of one entity.
        var last: (entity: ObjectIdentifier, constraints: [(placement: ConstraintGroup.Placement, group: Int)])?
        func forEachConstraint(of object: ManagedObject, onlyChangedKeys: Bool, _ body: (ConstraintGroup.Placement, Int) -> Void) {
            let entity = ObjectIdentifier(object.entity)
            let found: [(placement: ConstraintGroup.Placement, group: Int)]
            if let last, last.entity == entity {
                found = last.constraints
            } else {
                found = constraints(of: object.entity)
                last = (entity, found)
            }
            for (placement, group) in found {
                if onlyChangedKeys, !placement.isChanged(in: object) { continue }
                body(placement, group)
            }
        }
        func forEachChangedObject(_ body: (ManagedObject, _ onlyChangedKeys: Bool) -> Void) {
            insertedSet.forEachObject { object in if !object.state.isDeleted { body(object, false) } }
            updatedSet.forEachObject { object in if !object.state.isDeleted { body(object, true) } }
        }
        forEachChangedObject { object, onlyChangedKeys in
            forEachConstraint(of: object, onlyChangedKeys: onlyChangedKeys) { _, group in
                while counts.count <= group { counts.append(0) }
                counts[group] += 1
            }
        }
        for (number, count) in counts.enumerated() where count > 0 { groups[number].reserveCapacity(count) }
        forEachChangedObject { object, onlyChangedKeys in
            forEachConstraint(of: object, onlyChangedKeys: onlyChangedKeys) { placement, group in
                guard let values = placement.values(of: object) else { return }
                if groups[group].entries.isEmpty { order.append(group) }
                groups[group].add(object, values: values)
            }
        }
        var conflicts: [ConstraintConflict] = []
        for number in order {
            try findStoredRows(for: &groups[number])
            groups[number].takeConflicts(into: &conflicts)
        }
        return conflicts
    }

    /// Notes beside each of the group's values the stored row of the constraint's entity holding
    /// it — leaving out rows this save deletes or moves to other values.
    private func findStoredRows(for group: inout ConstraintGroup) throws {
        let key = group.key
        let chunkSize = key.fetchSize(for: group.entries)
        var placements: [ObjectIdentifier: ConstraintGroup.Placement?] = [:]
        // The last row's entity and its placement: the rows mostly come in runs of one entity.
        var lastPlacement: (entity: ObjectIdentifier, placement: ConstraintGroup.Placement?)?
        // Only an object this save updates or deletes can leave its stored row out: with none,
        // the rows are not looked up among the registered objects.
        let changesStoredObjects = !updatedSet.isEmpty || !deletedSet.isEmpty
        // The stores themselves (not a parent context, not a pinned query generation), which
        // may take a single key's values as they are, without a predicate of one constant each.
        let parent = try parentStore()
        let coordinator = key.constraint.count == 1 ? parent as? PersistentStoreCoordinator : nil
        var start = 0
        while start < group.entries.count {
            let end = min(start + chunkSize, group.entries.count)
            let snapshots: [StoreSnapshot]
            if let coordinator, let name = key.constraint.first,
                let rows = try coordinator.snapshots(ofEntity: key.owner.name, whose: name, isAmong: group.singleValues(in: start..<end))
            {
                snapshots = rows
            } else {
                var request = StoreFetchRequest(entityName: key.owner.name, resultType: .managedObject)
                request.includesPendingChanges = false
                // No slice of the entries outlives this line: one would make noting the stored rows
                // below copy every entry.
                request.predicate = key.predicate(matching: group.entries[start..<end].lazy.map(\.values))
                switch try parent.fetchForChild(request) {
                case .snapshots(let rows): snapshots = rows
                case .objectIDs(let ids): snapshots = ids.compactMap { registeredOrFaultObject(for: $0)?.currentSnapshot() }
                case .count, .dictionaries: snapshots = []
                }
            }
            // Where the next row's entry is looked for first (``ConstraintGroup/setStored(_:for:searchingFrom:before:)``).
            var next = start
            start = end
            for snapshot in snapshots {
                // The row's entity as this context's model has it (stores may hold their own
                // copy of the model), looked up once per entity.
                let entity = ObjectIdentifier(snapshot.entity)
                let placement: ConstraintGroup.Placement?
                if let lastPlacement, lastPlacement.entity == entity {
                    placement = lastPlacement.placement
                } else {
                    placement = placements[entity] ?? {
                        let placement = managedObjectModel?.entitiesByName[snapshot.entity.name].flatMap { ConstraintGroup.Placement(key: key, in: $0) }
                        placements[entity] = .some(placement)
                        return placement
                    }()
                    lastPlacement = (entity, placement)
                }
                guard let placement, let values = placement.values(of: snapshot.laidOut(as: placement.entity)) else { continue }
                if changesStoredObjects, let object = registered[snapshot.objectID] {
                    if object.state.isDeleted { continue }
                    if object.state.isUpdated, placement.values(of: object) != values { continue }
                }
                group.setStored(snapshot, for: values, searchingFrom: &next, before: end)
            }
        }
    }

    // MARK: Resolving conflicts

    /// Hands a save's constraint conflicts to the ``mergePolicy``: through
    /// ``MergePolicy/resolve(mergeConflicts:in:)``, which a subclass may override — or, for a
    /// plain ``MergePolicy`` (whose method only passes them on), straight to
    /// ``MergePolicy/resolve(constraintConflicts:in:)``, without a list of `Any` to build and cast back.
    func resolveConstraintConflicts(_ conflicts: [ConstraintConflict]) throws {
        if type(of: mergePolicy) == MergePolicy.self {
            try mergePolicy.resolve(constraintConflicts: conflicts, in: self)
        } else {
            try mergePolicy.resolve(mergeConflicts: conflicts, in: self)
        }
    }

    /// Applies a merge policy type to constraint conflicts
    /// (``MergePolicy/resolve(constraintConflicts:in:)``). For each conflict one object
    /// survives: the stored object — which the first new object becomes, when the stored object
    /// is not already registered here — or else the first conflicting object (a stored object
    /// this save moved onto the values before a new one). Its attributes take the last
    /// conflicting object's values (object-trump, overwrite) or keep the stored ones (store-trump,
    /// rollback); relationships are merged from every conflicting object; the others are deleted.
    func applyConstraintResolution(_ conflicts: [ConstraintConflict], type: MergePolicy.MergeType) throws {
        let objectWins = type == .mergeByPropertyObjectTrump || type == .overwrite
        // The stored attributes' indexes of each constraint's entity, found once, not per conflict.
        var lastOwner: (entity: EntityDescription, attributes: [Int])?
        // The conflicts are read in place: a copy of each would retain every reference it holds.
        for position in conflicts.indices {
            let ids = conflicts[position].conflictingObjectIDs
            // One object, the common case: one array, not two.
            let objects = ids.count == 1
                ? registered[ids[0]].map { $0.state.isDeleted ? [] : [$0] } ?? []
                : ids.compactMap { registered[$0] }.filter { !$0.state.isDeleted }
            guard let first = objects.first, let last = objects.last else { continue }
            if lastOwner?.entity.name != conflicts[position].entity {
                lastOwner = managedObjectModel?.entitiesByName[conflicts[position].entity].map { ($0, Self.storedAttributeIndexes(of: $0)) }
            }
            guard let owner = lastOwner else { continue }
            // The last object's values as they are now (`become` may load stored ones into it).
            let winningValues = objectWins ? last.values : nil
            var survivor = first
            var losers = Array(objects.dropFirst())
            if let storedID = conflicts[position].databaseObjectID, let stored = conflicts[position].databaseSnapshot {
                if registered[storedID] == nil, first.state.isInserted, first.entity.name == storedID.entityName {
                    if objectWins, first === last, first.entity === owner.entity, !first.entity.layout.hasRelationships,
                        !UndoRecording.isActive, first.state.failedSets.isEmpty
                    {
                        becomeKeepingValues(first, storedID: storedID, stored: stored, attributes: owner.attributes)
                        continue
                    }
                    become(first, storedID: storedID, stored: stored)
                } else if let existing = registeredOrFaultObject(for: storedID) {
                    existing.willAccess()
                    survivor = existing
                    losers = objects
                }
            }
            if let winningValues { take(winningValues, at: owner.attributes, into: survivor) }
            for loser in losers {
                mergeRelationships(of: loser, into: survivor)
                delete(loser)
            }
        }
        processPendingChanges()
    }

    /// Sets the survivor's attributes at `indexes` to `values` where they differ, as
    /// `setAttributeValue(_:at:)` would one by one, but noting the object changed once (and its
    /// committed values kept once) rather than per attribute. Under undo recording, or with a
    /// failed set to clear, each goes through `setAttributeValue(_:at:)`.
    private func take(_ values: StoreValues, at indexes: [Int], into survivor: ManagedObject) {
        survivor.willAccess()
        guard let first = indexes.firstIndex(where: { survivor.values[$0] != values[$0] }) else { return }
        if UndoRecording.isActive || !survivor.state.failedSets.isEmpty {
            for index in indexes[first...] where survivor.values[index] != values[index] {
                survivor.setAttributeValue(values[index], at: index)
            }
            return
        }
        survivor.keepCommittedValues()
        for index in indexes[first...] where survivor.values[index] != values[index] {
            survivor.values[index] = values[index]
            survivor.changedProperties.insert(index)
        }
        survivor.noteChange(at: indexes[first])
    }

    /// The indexes of the stored attributes `owner` declares (or inherits) — the same in its
    /// sub-entities, whose layouts put their parents' properties first.
    private static func storedAttributeIndexes(of owner: EntityDescription) -> [Int] {
        owner.attributes.compactMap { attribute in
            attribute.isTransient ? nil : owner.propertyIndexes[attribute.name]
        }
    }

    /// Turns a new object into the stored object it duplicates: it takes the stored ID, values
    /// and version, and keeps the relationships it was given (added to the stored ones).
    private func become(_ object: ManagedObject, storedID: ManagedObjectID, stored: StoreSnapshot) {
        let layout = object.entity.layout
        let toOne = layout.toOneIndexes.map { ($0, object.toOneObject(at: $0)) }
        let toMany = layout.toManyIndexes.map { ($0, object.toManyObjects(at: $0).objects) }
        insertedSet.remove(object)
        object.state.isInserted = false   // and so no longer among `pendingChanges.inserted`
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

    /// Object-trump's common case — one new object, of an entity without relationships,
    /// duplicating a stored object of its own entity: it becomes the stored object with its own
    /// values, as ``become(_:storedID:stored:)`` followed by taking its values back does, but
    /// without loading the stored values first. The stored row becomes its committed values, and
    /// the attributes that differ from the row its changes (none: the object is clean).
    private func becomeKeepingValues(_ object: ManagedObject, storedID: ManagedObjectID, stored: StoreSnapshot, attributes: [Int]) {
        insertedSet.remove(object)
        object.state.isInserted = false   // and so no longer among `pendingChanges.inserted`
        reassign(object, to: storedID)
        let stored = stored.laidOut(as: object.entity)
        object.version = stored.version
        object.setCommitted(stored)
        object.changedProperties.removeAll()
        var firstChange: Int?
        for index in attributes where object.values[index] != stored[index] {
            object.changedProperties.insert(index)
            if firstChange == nil { firstChange = index }
        }
        if let firstChange { object.noteChange(at: firstChange) }
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
