import Foundation

extension ManagedObjectContext {
    /// The context's changes of one kind, as an async sequence (ends when the task stops reading).
    ///
    /// For example:
    ///
    /// ```swift
    /// Task {
    ///     for await change in background.changes(of: .didSave) {
    ///         try await viewContext.perform { viewContext.mergeChanges(from: change) }
    ///     }
    /// }
    /// ```
    public func changes(of kind: ContextChanges.Kind) -> AsyncStream<ContextChanges> {
        let (stream, continuation) = AsyncStream.makeStream(of: ContextChanges.self)
        let id = UUID()
        observers.withLock { $0[id] = ChangeObserver(kind: kind, continuation: continuation) }
        continuation.onTermination = { [weak self] _ in
            _ = self?.observers.withLock { $0.removeValue(forKey: id) }
        }
        return stream
    }

    func postObjectsDidChange(refreshed: [ManagedObject] = [], invalidated: [ManagedObject] = [], mergedIDs: [ManagedObjectID] = []) {
        let pending = pendingChanges
        pendingChanges = PendingChanges()
        guard !pending.isEmpty || !refreshed.isEmpty || !invalidated.isEmpty else {
            if !mergedIDs.isEmpty { notifyObjectsListeners(ObjectChangeBatch(mergedIDs: mergedIDs)) }
            return
        }
        let inserted = Array(pending.inserted.values.filter { $0.state.isInserted })
        for object in inserted { object.state.insertionReported = true }
        // Objects inserted or deleted since are reported as such, not as updated (read into an
        // array directly: filtering the dictionary first made a second one, hashing every key).
        var updated: [ManagedObject] = []
        updated.reserveCapacity(pending.updated.count)
        if pending.inserted.isEmpty && pending.deleted.isEmpty {
            updated.append(contentsOf: pending.updated.values)
        } else {
            for (key, object) in pending.updated where pending.inserted[key] == nil && pending.deleted[key] == nil { updated.append(object) }
        }
        let deleted = Array(pending.deleted.values)
        var changes = makeChanges(.objectsDidChange, inserted: inserted, updated: updated, deletedIDs: deleted.map(\.objectID))
        if !refreshed.isEmpty { changes.refreshedObjectIDs = Set(refreshed.map(\.objectID)) }
        if !invalidated.isEmpty { changes.invalidatedObjectIDs = Set(invalidated.map(\.objectID)) }
        let objects = NotificationObjectSets(
            inserted: Set(inserted), updated: Set(updated), deleted: Set(deleted), refreshed: Set(refreshed), invalidated: Set(invalidated))
        post(.managedObjectContextObjectsDidChange, changes, objects: objects)
        if saveNotificationSets != nil { keepForDidSave(objects, changes, inserted: inserted, updated: updated, deleted: deleted) }
        notifyObjectsListeners(ObjectChangeBatch(
            inserted: inserted, updated: updated, deleted: deleted, refreshed: refreshed, invalidated: invalidated, mergedIDs: mergedIDs))
    }

    /// Keeps, for the did-save of the save in progress, each set of objects that holds exactly the
    /// members of the context's list of that kind (see ``SaveNotificationSets``).
    private func keepForDidSave(
        _ objects: NotificationObjectSets, _ changes: ContextChanges, inserted: [ManagedObject], updated: [ManagedObject], deleted: [ManagedObject]
    ) {
        typealias Kept = SaveNotificationSets.Kept
        if insertedSet.hasExactly(inserted) {
            // Inserted objects get permanent IDs before did-save: their IDs are not kept.
            saveNotificationSets?.inserted = Kept(objects: objects.inserted, objectIDs: LazyObjectIDSet(), generation: insertedSet.generation)
        }
        if updatedSet.hasExactly(updated) {
            saveNotificationSets?.updated = Kept(objects: objects.updated, objectIDs: changes.heldUpdatedObjectIDs, generation: updatedSet.generation)
        }
        if deletedSet.hasExactly(deleted) {
            saveNotificationSets?.deleted = Kept(objects: objects.deleted, objectIDs: changes.heldDeletedObjectIDs, generation: deletedSet.generation)
        }
    }

    /// The generations of the inserted, updated and deleted lists now.
    var changeListGenerations: ChangeListGenerations {
        ChangeListGenerations(inserted: insertedSet.generation, updated: updatedSet.generation, deleted: deletedSet.generation)
    }

    func makeChanges(_ kind: ContextChanges.Kind, inserted: [ManagedObject], updated: [ManagedObject], deletedIDs: [ManagedObjectID]) -> ContextChanges {
        ContextChanges(kind: kind, contextName: name, inserted: inserted.map(\.objectID), updated: updated.map(\.objectID), deleted: deletedIDs)
    }

    /// Posts a notification (objects under the object keys, IDs under the ID keys, the
    /// ``ContextChanges`` under `changes`) and feeds the async sequences of that kind.
    func post(_ name: Notification.Name, _ changes: ContextChanges, objects: NotificationObjectSets = NotificationObjectSets()) {
        typealias Key = NotificationKey
        var info: [AnyHashable: Any] = [Key.changes.rawValue: changes]
        if name != .managedObjectContextWillSave {
            info[Key.insertedObjectIDs.rawValue] = changes.insertedObjectIDs
            info[Key.updatedObjectIDs.rawValue] = changes.updatedObjectIDs
            info[Key.deletedObjectIDs.rawValue] = changes.deletedObjectIDs
            if !changes.refreshedObjectIDs.isEmpty { info[Key.refreshedObjectIDs.rawValue] = changes.refreshedObjectIDs }
            if !changes.invalidatedObjectIDs.isEmpty { info[Key.invalidatedObjectIDs.rawValue] = changes.invalidatedObjectIDs }
        }
        if name == .managedObjectContextDidSave || name == .managedObjectContextObjectsDidChange {
            info[Key.insertedObjects.rawValue] = objects.inserted
            info[Key.updatedObjects.rawValue] = objects.updated
            info[Key.deletedObjects.rawValue] = objects.deleted
            if !objects.refreshed.isEmpty { info[Key.refreshedObjects.rawValue] = objects.refreshed }
            if !objects.invalidated.isEmpty { info[Key.invalidatedObjects.rawValue] = objects.invalidated }
        }
        NotificationCenter.default.post(name: name, object: self, userInfo: info)
        guard name != .managedObjectContextDidSaveObjectIDs else { return }
        for observer in observers.withLock({ Array($0.values) }) where observer.kind == changes.kind {
            observer.continuation.yield(changes)
        }
    }
}
