import Foundation

extension ManagedObjectContext {
    /// Saves every change: a root context writes to its stores, a child context pushes its
    /// changes into its parent. Delete rules are applied and every object validated first;
    /// every failure is reported together.
    ///
    /// A failed save changes nothing: the stores (or parent) are as they were, and this context
    /// keeps its changes so you can fix them and save again, or roll back.
    ///
    /// For example:
    ///
    /// ```swift
    /// do { try context.save() }
    /// catch let error as ObjectValidationError { for e in error.allErrors { print(e) } }
    /// ```
    ///
    /// - Throws: ``ObjectValidationError``, ``MergeConflictError`` (under ``MergePolicy/error``) or ``StoreError``.
    public func save() throws {
        checkQueue(accessing: nil)
        guard !isSaving else { return }
        isSaving = true
        defer { isSaving = false }
        processPendingChanges()
        guard hasChanges else { return }

        post(.managedObjectContextWillSave, makeChanges(
            .willSave, inserted: Array(insertedSet.values), updated: Array(updatedSet.values), deletedIDs: deletedSet.values.map(\.objectID)))
        for object in changedObjectsInOrder() { object.willSave() }
        processPendingChanges()

        if let error = ObjectValidationError.combining(validationErrors()) { throw error }

        let inserted = insertedSet.values.sorted { $0.insertionOrder < $1.insertionOrder }
        let updated = Array(updatedSet.values)
        let deleted = Array(deletedSet.values)
        let deletedIDs = deleted.map(\.objectID)
        for object in inserted + updated { object.resolveReferences() }

        var permanentIDs: [ManagedObjectID: ManagedObjectID] = [:]
        let saved: StoreChangeSet
        if let parent {
            saved = makeChangeSet(inserted, updated, deleted)
            try parent.performAndWait { try parent.applyChildChanges(saved, from: self) }
        } else {
            (saved, permanentIDs) = try saveToStores(inserted, updated, deleted)
        }
        finishSave(inserted, updated, deleted, deletedIDs: deletedIDs, saved: saved)
        if !permanentIDs.isEmpty { passPermanentIDsToChildren(permanentIDs) }
    }

    private func changedObjectsInOrder() -> [ManagedObject] {
        insertedSet.values.sorted { $0.insertionOrder < $1.insertionOrder } + Array(updatedSet.values) + Array(deletedSet.values)
    }

    /// Saves through the coordinator; returns what was saved and the permanent ID each new object
    /// received, by its temporary ID.
    private func saveToStores(
        _ inserted: [ManagedObject], _ updated: [ManagedObject], _ deleted: [ManagedObject]
    ) throws -> (StoreChangeSet, [ManagedObjectID: ManagedObjectID]) {
        guard let coordinator = persistentStoreCoordinator else { throw StoreError(.noStores, "\(self) has no persistent store coordinator") }
        let needingIDs = inserted.filter { $0.objectID.isTemporaryID }
        let temporaryIDs = needingIDs.map(\.objectID)
        let permanentIDs = try coordinator.obtainPermanentIDs(for: needingIDs.map { ($0.entity.name, assignedStores[ObjectIdentifier($0)]) })
        for (object, id) in zip(needingIDs, permanentIDs) { reassign(object, to: id) }
        do {
            var attempt = 0
            while true {
                do {
                    let changes = makeChangeSet(inserted, updated, deleted)
                    try coordinator.save(changes)
                    return (changes, Dictionary(uniqueKeysWithValues: zip(temporaryIDs, permanentIDs)))
                } catch let conflict as MergeConflictError where mergePolicy != .error && attempt < 3 {
                    attempt += 1
                    resolve(conflict)
                }
            }
        } catch {
            for (object, id) in zip(needingIDs, temporaryIDs) { reassign(object, to: id) }
            throw error
        }
    }

    func makeChangeSet(_ inserted: [ManagedObject], _ updated: [ManagedObject], _ deleted: [ManagedObject]) -> StoreChangeSet {
        var changes = StoreChangeSet()
        changes.contextName = name
        changes.transactionAuthor = transactionAuthor
        changes.inserted = inserted.map { $0.currentSnapshot(allToMany: true) }
        for object in updated where object.managedObjectContext === self {
            let snapshot = object.changedSnapshot()
            if !snapshot.values.isEmpty || !snapshot.toMany.isEmpty { changes.updated.append(snapshot) }
        }
        changes.deleted = deleted.filter { !$0.objectID.isTemporaryID && $0.managedObjectContext === self }.map { object in
            // A fault deleted without being read learns its version now (optimistic locking needs it).
            if object.isFault { object.willAccess() }
            return StoreSnapshot(objectID: object.objectID, version: object.version)
        }
        return changes
    }

    private func finishSave(
        _ inserted: [ManagedObject], _ updated: [ManagedObject], _ deleted: [ManagedObject], deletedIDs: [ManagedObjectID],
        saved: StoreChangeSet
    ) {
        let toParent = parent != nil
        // The saved snapshots become the committed state (no second copy of the values).
        for (object, snapshot) in zip(inserted, saved.inserted) {
            object.state.isInserted = false
            if !toParent { object.version = 1 }
            object.committedSnapshot = snapshot
            object.committedSnapshot?.version = object.version
            object.changedIndexes.removeAll()
        }
        let savedUpdates = Dictionary(saved.updated.map { ($0.objectID, $0) }, uniquingKeysWith: { first, _ in first })
        for object in updated {
            object.state.isUpdated = false
            if let change = savedUpdates[object.objectID] {
                if !toParent { object.version += 1 }
                if var committed = object.committedSnapshot {
                    committed.values.merge(change.values) { $1 }
                    committed.toMany.merge(change.toMany) { $1 }
                    committed.version = object.version
                    object.committedSnapshot = committed
                }
            }
            object.changedIndexes.removeAll()
        }
        for object in deleted {
            registered[object.objectID] = nil
            prefetchedSnapshots[object.objectID] = nil
            object.state.isDeleted = false
        }
        insertedSet.removeAll()
        updatedSet.removeAll()
        deletedSet.removeAll()
        deniedDeletions.removeAll()
        assignedStores.removeAll()
        pendingChanges = PendingChanges()

        for object in inserted + updated + deleted { object.didSave() }
        for object in deleted { object.detach() }

        let changes = makeChanges(.didSave, inserted: inserted, updated: updated, deletedIDs: deletedIDs)
        post(.managedObjectContextDidSave, changes, inserted: inserted, updated: updated, deleted: deleted)
        post(.managedObjectContextDidSaveObjectIDs, changes)
        if let parent {
            parent.childDidSave(changes, from: self)
        } else {
            persistentStoreCoordinator?.contextDidSave(changes, from: self)
            notifyChildren(changes, except: nil)
        }
    }

    /// Child contexts hold objects they pushed here under their temporary IDs; once this context
    /// saved them, the children adopt the permanent IDs (on their own queues, in order).
    func passPermanentIDsToChildren(_ permanentIDs: [ManagedObjectID: ManagedObjectID]) {
        for child in children.withLock({ $0.compactMap(\.context) }) {
            child.perform { [weak child] in child?.adoptPermanentIDs(permanentIDs) }
        }
    }

    func adoptPermanentIDs(_ permanentIDs: [ManagedObjectID: ManagedObjectID]) {
        for (temporary, permanent) in permanentIDs {
            guard let object = registered[temporary] else { continue }
            reassign(object, to: permanent)
            if !object.state.isInserted { object.version = max(object.version, 1) }
        }
        passPermanentIDsToChildren(permanentIDs)
    }

    func notifyChildren(_ changes: ContextChanges, except source: ManagedObjectContext?) {
        for child in children.withLock({ $0.compactMap(\.context) }) where child !== source {
            child.mergeAutomatically(changes)
        }
    }

    // MARK: Receiving a child's save

    func applyChildChanges(_ changes: StoreChangeSet, from child: ManagedObjectContext) throws {
        guard let model = managedObjectModel else { throw StoreError(.noStores, "\(self) has no persistent store coordinator") }
        for snapshot in changes.inserted {
            let entity = try model.entity(named: snapshot.objectID.entityName)
            let object = entity.managedObjectClass.init(entity: entity, insertInto: nil)
            object.objectID = snapshot.objectID
            object.managedObjectContext = self
            registered[object.objectID] = object
            insertedSet[ObjectIdentifier(object)] = object
            object.state.isInserted = true
            insertionCounter += 1
            object.insertionOrder = insertionCounter
            pendingChanges.inserted[ObjectIdentifier(object)] = object
            object.apply(snapshot)
        }
        for snapshot in changes.updated {
            guard let object = registeredOrFaultObject(for: snapshot.objectID) else { continue }
            object.willAccess()
            object.apply(snapshot)
        }
        for snapshot in changes.deleted {
            guard let object = registeredOrFaultObject(for: snapshot.objectID) else { continue }
            markDeletedWithoutRules(object)
        }
        postObjectsDidChange()
    }

    private func markDeletedWithoutRules(_ object: ManagedObject) {
        let id = ObjectIdentifier(object)
        if object.state.isInserted {
            insertedSet[id] = nil
            registered[object.objectID] = nil
        } else {
            updatedSet[id] = nil
            deletedSet[id] = object
        }
        object.state.isInserted = false
        object.state.isUpdated = false
        object.state.isDeleted = true
        pendingChanges.deleted[id] = object
    }

    func childDidSave(_ changes: ContextChanges, from child: ManagedObjectContext) {
        notifyChildren(changes, except: child)
    }
}

extension ManagedObject {
    /// Replaces ID-only relationship slots with objects, before IDs change during a save.
    func resolveReferences() {
        for (index, slot) in slots.enumerated() {
            switch slot {
            case .toOneID: _ = toOneObject(at: index)
            case .toManyIDs: _ = toManyObjects(at: index)
            default: break
            }
        }
    }

    /// The changed stored values, with the version they were based on.
    func changedSnapshot() -> StoreSnapshot {
        var snapshot = StoreSnapshot(objectID: objectID, version: version)
        for index in changedIndexes.sorted() where !entity.properties[index].isTransient {
            let name = entity.properties[index].name
            switch slots[index] {
            case .value(let value): snapshot.values[name] = value
            case .toOne(let object): snapshot.values[name] = object.map { .objectID($0.objectID) } ?? .null
            case .toOneID(let id): snapshot.values[name] = id.map(StoreValue.objectID) ?? .null
            case .toMany(let related): snapshot.toMany[name] = related.objects.map(\.objectID)
            case .toManyIDs(let ids): snapshot.toMany[name] = ids
            case .toManyFault: break
            }
        }
        return snapshot
    }

    /// Writes the values of a (partial) snapshot into the slots as changes, without touching inverses
    /// (the snapshot comes from a context that already kept both sides in step).
    func apply(_ snapshot: StoreSnapshot) {
        for (name, value) in snapshot.values {
            guard let index = entity.propertyIndexes[name] else { continue }
            if entity.properties[index] is RelationshipDescription {
                if case .objectID(let id) = value { slots[index] = .toOneID(id) } else { slots[index] = .toOneID(nil) }
            } else {
                slots[index] = .value(value)
            }
            noteChange(at: index)
        }
        for (name, ids) in snapshot.toMany {
            guard let index = entity.propertyIndexes[name] else { continue }
            slots[index] = .toManyIDs(ids)
            noteChange(at: index)
        }
    }
}
