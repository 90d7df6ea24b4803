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
        let updated = Array(pending.updated.filter { pending.inserted[$0.key] == nil && pending.deleted[$0.key] == nil }.values)
        let deleted = Array(pending.deleted.values)
        var changes = makeChanges(.objectsDidChange, inserted: inserted, updated: updated, deletedIDs: deleted.map(\.objectID))
        if !refreshed.isEmpty { changes.refreshedObjectIDs = Set(refreshed.map(\.objectID)) }
        if !invalidated.isEmpty { changes.invalidatedObjectIDs = Set(invalidated.map(\.objectID)) }
        post(.managedObjectContextObjectsDidChange, changes, inserted: inserted, updated: updated, deleted: deleted, refreshed: refreshed, invalidated: invalidated)
        notifyObjectsListeners(ObjectChangeBatch(
            inserted: inserted, updated: updated, deleted: deleted, refreshed: refreshed, invalidated: invalidated, mergedIDs: mergedIDs))
    }

    func makeChanges(_ kind: ContextChanges.Kind, inserted: [ManagedObject], updated: [ManagedObject], deletedIDs: [ManagedObjectID]) -> ContextChanges {
        ContextChanges(kind: kind, contextName: name, inserted: inserted.map(\.objectID), updated: updated.map(\.objectID), deleted: deletedIDs)
    }

    /// Posts a notification (objects under the object keys, IDs under the ID keys, the
    /// ``ContextChanges`` under `changes`) and feeds the async sequences of that kind.
    func post(
        _ name: Notification.Name, _ changes: ContextChanges, inserted: [ManagedObject] = [], updated: [ManagedObject] = [],
        deleted: [ManagedObject] = [], refreshed: [ManagedObject] = [], invalidated: [ManagedObject] = []
    ) {
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
            info[Key.insertedObjects.rawValue] = Set(inserted)
            info[Key.updatedObjects.rawValue] = Set(updated)
            info[Key.deletedObjects.rawValue] = Set(deleted)
            if !refreshed.isEmpty { info[Key.refreshedObjects.rawValue] = Set(refreshed) }
            if !invalidated.isEmpty { info[Key.invalidatedObjects.rawValue] = Set(invalidated) }
        }
        NotificationCenter.default.post(name: name, object: self, userInfo: info)
        guard name != .managedObjectContextDidSaveObjectIDs else { return }
        for observer in observers.withLock({ Array($0.values) }) where observer.kind == changes.kind {
            observer.continuation.yield(changes)
        }
    }
}
