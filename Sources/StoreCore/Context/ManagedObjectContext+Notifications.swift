import Foundation

extension ManagedObjectContext {
    /// The context's changes of one kind, as an async sequence (ends when the task stops reading).
    ///
    /// For example:
    ///
    /// ```swift
    /// Task {
    ///     for await change in background.changes(of: .didSave) {
    ///         await viewContext.perform { viewContext.mergeChanges(from: change) }
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

    func postObjectsDidChange(refreshed: [ManagedObject] = [], invalidated: [ManagedObject] = []) {
        let pending = pendingChanges
        pendingChanges = PendingChanges()
        guard !pending.isEmpty || !refreshed.isEmpty || !invalidated.isEmpty else { return }
        let updated = pending.updated.filter { pending.inserted[$0.key] == nil && pending.deleted[$0.key] == nil }
        post(
            .managedObjectContextObjectsDidChange, kind: .objectsDidChange,
            inserted: Array(pending.inserted.values.filter { $0.state.isInserted }), updated: Array(updated.values),
            deleted: Array(pending.deleted.values), refreshed: refreshed, invalidated: invalidated)
    }

    @discardableResult
    func post(
        _ name: Notification.Name, kind: ContextChanges.Kind, inserted: [ManagedObject], updated: [ManagedObject],
        deleted: [ManagedObject], refreshed: [ManagedObject] = [], invalidated: [ManagedObject] = [],
        deletedIDs: [ManagedObjectID]? = nil
    ) -> ContextChanges {
        var changes = ContextChanges(kind: kind, contextName: self.name)
        changes.insertedObjectIDs = Set(inserted.map(\.objectID))
        changes.updatedObjectIDs = Set(updated.map(\.objectID))
        changes.deletedObjectIDs = Set(deletedIDs ?? deleted.map(\.objectID))
        changes.refreshedObjectIDs = Set(refreshed.map(\.objectID))
        changes.invalidatedObjectIDs = Set(invalidated.map(\.objectID))
        typealias Key = NotificationKey
        var info: [AnyHashable: Any] = [Key.changes.rawValue: changes]
        if name == .managedObjectContextDidSaveObjectIDs {
            info[Key.insertedObjectIDs.rawValue] = changes.insertedObjectIDs
            info[Key.updatedObjectIDs.rawValue] = changes.updatedObjectIDs
            info[Key.deletedObjectIDs.rawValue] = changes.deletedObjectIDs
        } else if kind != .willSave {
            info[Key.insertedObjects.rawValue] = Set(inserted)
            info[Key.updatedObjects.rawValue] = Set(updated)
            info[Key.deletedObjects.rawValue] = Set(deleted)
            if !refreshed.isEmpty { info[Key.refreshedObjects.rawValue] = Set(refreshed) }
            if !invalidated.isEmpty { info[Key.invalidatedObjects.rawValue] = Set(invalidated) }
            info[Key.insertedObjectIDs.rawValue] = changes.insertedObjectIDs
            info[Key.updatedObjectIDs.rawValue] = changes.updatedObjectIDs
            info[Key.deletedObjectIDs.rawValue] = changes.deletedObjectIDs
            if !refreshed.isEmpty { info[Key.refreshedObjectIDs.rawValue] = changes.refreshedObjectIDs }
            if !invalidated.isEmpty { info[Key.invalidatedObjectIDs.rawValue] = changes.invalidatedObjectIDs }
        }
        NotificationCenter.default.post(name: name, object: self, userInfo: info)
        if name != .managedObjectContextDidSaveObjectIDs {
            for observer in observers.withLock({ Array($0.values) }) where observer.kind == kind {
                observer.continuation.yield(changes)
            }
        }
        return changes
    }
}
