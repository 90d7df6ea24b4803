import Foundation

extension ManagedObjectContext {
    /// Discards every unsaved change: inserted objects leave the context, changed and deleted
    /// objects return to their saved values. The undo manager's actions are removed, as in Core Data.
    public func rollback() {
        checkQueue(accessing: nil)
        discardUndo()
        let inserted = insertedSet.values
        let touched = updatedSet.values + deletedSet.values + Array(deniedDeletions.values)
        for object in pendingChanges.deleted where !object.hasCommittedState && !object.isFault {
            registered[object.objectID] = nil
            object.state = .init()
            object.detach()
        }
        for object in inserted {
            registered[object.objectID] = nil
            object.state = .init()
            object.detach()
        }
        for object in touched {
            object.state = .init()
            object.turnIntoFault()
        }
        insertedSet.removeAll()
        updatedSet.removeAll()
        deletedSet.removeAll()
        deniedDeletions.removeAll()
        pendingDeletions.removeAll()
        assignedStores.removeAll()
        conflictCheckedObjects.removeAll()
        pendingRowInsertions.removeAll()
        pendingChanges.removeAll()
    }

    /// Forgets every object: all objects leave the context, unsaved changes are lost, and the
    /// undo manager's actions are removed.
    public func reset() {
        checkQueue(accessing: nil)
        discardUndo()
        for object in registered.objects {
            object.state = .init()
            object.detach()
        }
        registered.removeAll()
        insertedSet.removeAll()
        updatedSet.removeAll()
        deletedSet.removeAll()
        deniedDeletions.removeAll()
        pendingDeletions.removeAll()
        assignedStores.removeAll()
        conflictCheckedObjects.removeAll()
        pendingRowInsertions.removeAll()
        pendingChanges.removeAll()
        advanceQueryGeneration()
    }

    /// Re-reads an object's saved values. With `mergeChanges` false the object becomes a fault
    /// and its unsaved changes and transient values are lost; with true its unsaved changes are
    /// kept on top of the latest saved values, and its transient properties are left as they are.
    public func refresh(_ object: ManagedObject, mergeChanges: Bool) {
        checkQueue(accessing: object)
        guard object.managedObjectContext === self, !object.state.isInserted else { return }
        if object.isFault { object.committed = .none }   // the row it was fetched with may be stale
        if !mergeChanges || object.changedProperties.isEmpty || object.isFault {
            if !object.state.isDeleted || !mergeChanges {
                updatedSet.remove(object)
                object.state.isUpdated = false
            }
            // Core Data: merging leaves transient properties alone; faulting disposes of them.
            if !object.isFault { object.turnIntoFault(keepingTransientValues: mergeChanges) }
            return
        }
        // A store that cannot answer leaves the object as it is (its changes included).
        guard let latest = try? parentStore().snapshotForChild(object.objectID) else { return }
        let changed = object.changedProperties
        let kept = changed.map { ($0, object.propertyState(at: $0)) }
        object.load(latest)
        for (index, property) in kept { object.restore(property, at: index) }
        object.changedProperties = changed
    }

    /// Refreshes every object, keeping unsaved changes.
    public func refreshAllObjects() {
        checkQueue(accessing: nil)
        advanceQueryGeneration()
        for object in registered.objects { refresh(object, mergeChanges: true) }
    }

    /// Folds another context's saved changes into this one: updated objects are refreshed
    /// (keeping this context's own unsaved changes), deleted objects leave the context.
    ///
    /// For example:
    ///
    /// ```swift
    /// NotificationCenter.default.addObserver(forName: .managedObjectContextDidSave, object: background, queue: nil) { note in
    ///     viewContext.perform { viewContext.mergeChanges(fromContextDidSave: note) }
    /// }
    /// ```
    public func mergeChanges(fromContextDidSave notification: Notification) {
        if let changes = notification.contextChanges {
            mergeChanges(from: changes)
        } else if let info = notification.userInfo {
            var changes = ContextChanges(kind: .didSave)
            for (key, target) in [(NotificationKey.updatedObjectIDs, \ContextChanges.updatedObjectIDs), (.deletedObjectIDs, \.deletedObjectIDs), (.insertedObjectIDs, \.insertedObjectIDs)] {
                changes[keyPath: target] = info[key.rawValue] as? Set<ManagedObjectID> ?? []
            }
            mergeChanges(from: changes)
        }
    }

    /// Folds a set of saved changes into this context; see ``mergeChanges(fromContextDidSave:)``.
    public func mergeChanges(from changes: ContextChanges) {
        checkQueue(accessing: nil)
        advanceQueryGeneration()
        var refreshed: [ManagedObject] = []
        var invalidated: [ManagedObject] = []
        // Objects this context does not hold yet: its fetched results controllers may want them.
        var mergedIDs: [ManagedObjectID] = objectsListeners.isEmpty ? [] : Array(changes.insertedObjectIDs.filter { registered[$0] == nil })
        for id in changes.updatedObjectIDs {
            guard let object = registered[id] else {
                if !objectsListeners.isEmpty { mergedIDs.append(id) }
                continue
            }
            refresh(object, mergeChanges: true)
            refreshed.append(object)
        }
        for id in changes.deletedObjectIDs.union(changes.invalidatedObjectIDs) {
            guard let object = registered[id] else { continue }
            forget(object)
            invalidated.append(object)
        }
        postObjectsDidChange(refreshed: refreshed, invalidated: invalidated, mergedIDs: mergedIDs)
    }

    /// Removes an object deleted elsewhere, and drops it from the loaded relationships of others.
    func forget(_ object: ManagedObject) {
        if !object.isFault {
            for relationship in object.entity.relationships {
                guard let inverse = relationship.inverseRelationship, let index = object.entity.propertyIndexes[relationship.name] else { continue }
                let destinations: [ManagedObject] = switch object.relations[index] {
                case .toOne(let destination): destination.map { [$0] } ?? []
                case .toMany(let related): related.objects
                default: []
                }
                for destination in destinations where !destination.isFault {
                    destination.dropWithoutTracking(object, from: inverse)
                }
            }
        }
        insertedSet.remove(object)
        updatedSet.remove(object)
        deletedSet.remove(object)
        registered[object.objectID] = nil
        object.state = .init()
        object.detach()
    }

    func mergeAutomatically(_ changes: ContextChanges) {
        perform { [weak self] in
            guard let self, self.automaticallyMergesChangesFromParent else { return }
            self.mergeChanges(from: changes)
        }
    }
}

extension ManagedObject {
    /// Removes an object from a loaded relationship slot without recording a change.
    func dropWithoutTracking(_ object: ManagedObject, from relationship: RelationshipDescription) {
        guard let index = entity.propertyIndexes[relationship.name] else { return }
        switch relations[index] {
        case .toOne(let current) where current === object: relations[index] = .toOne(nil)
        case .toMany(var related):
            relations[index] = .unresolved
            related.remove(object, keepingOrder: relationship.isOrdered)
            relations[index] = .toMany(related)
        default: break
        }
    }
}
