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
        var pending = pendingChanges
        pendingChanges = PendingChanges()
        guard !pending.isEmpty || !refreshed.isEmpty || !invalidated.isEmpty else {
            if !mergedIDs.isEmpty { notifyObjectsListeners(ObjectChangeBatch(mergedIDs: mergedIDs)) }
            return
        }
        // Every listed object's flag is cleared by `isReported` below, reported or not.
        var updated = pending.takeUpdated()
        // One pass over each kind's objects: which are reported, their IDs, and whether they are
        // exactly the context's list of that kind (for the save's did-save to carry the same sets).
        // An object listed as inserted and deleted since is no longer `isInserted`.
        let (insertedObjects, insertedIDs, insertedListed) = Self.reported(taking: &pending.inserted, listedIn: insertedSet) { object in
            guard object.state.isInserted else { return false }
            object.state.insertionReported = true
            return true
        }
        let deletedAny = !pending.deleted.isEmpty
        let (deletedObjects, deletedIDs, deletedListed) = Self.reported(taking: &pending.deleted, listedIn: deletedSet) { _ in true }
        // Objects inserted or deleted since are reported as such, not as updated.
        let (updatedObjects, updatedIDs, updatedListed) = insertedObjects.isEmpty && !deletedAny
            ? Self.reported(taking: &updated, listedIn: updatedSet) { object in
                object.state.isPendingUpdate = false
                return true
            }
            : Self.reported(taking: &updated, listedIn: updatedSet) { object in
                object.state.isPendingUpdate = false
                return !insertedObjects.contains(object) && !deletedObjects.contains(object)
            }
        // Objects listed as inserted that are no longer (a new object that became the stored one
        // it duplicated) leave nothing to report.
        guard !insertedObjects.isEmpty || !updatedObjects.isEmpty || !deletedObjects.isEmpty || !refreshed.isEmpty || !invalidated.isEmpty else {
            if !mergedIDs.isEmpty { notifyObjectsListeners(ObjectChangeBatch(mergedIDs: mergedIDs)) }
            return
        }
        // The ID lists are handed over, not shared: a list held here too was copied (a retain of
        // each ID) when its set was made, and a million updates held it twice (16 MB more).
        var changes = ContextChanges(
            kind: .objectsDidChange, contextName: name, inserted: consume insertedIDs, updated: consume updatedIDs, deleted: consume deletedIDs)
        if !refreshed.isEmpty { changes.refreshedObjectIDs = Set(refreshed.map(\.objectID)) }
        if !invalidated.isEmpty { changes.invalidatedObjectIDs = Set(invalidated.map(\.objectID)) }
        let objects = NotificationObjectSets(
            inserted: insertedObjects, updated: updatedObjects, deleted: deletedObjects, refreshed: Set(refreshed), invalidated: Set(invalidated))
        // The lists and IDs as the sets were made from them (an observer may change either).
        let generations = changeListGenerations, reassignments = reassignments
        post(.managedObjectContextObjectsDidChange, changes, objects: objects)
        if saveNotificationSets != nil {
            keepForSave(objects, changes, listed: (insertedListed, updatedListed, deletedListed), at: generations, reassignments: reassignments)
        }
        if !objectsListeners.isEmpty {
            notifyObjectsListeners(ObjectChangeBatch(
                inserted: Array(insertedObjects), updated: Array(updatedObjects), deleted: Array(deletedObjects),
                refreshed: refreshed, invalidated: invalidated, mergedIDs: mergedIDs))
        }
    }

    /// The inserted, updated or deleted objects an objects-did-change reports (those listed that
    /// `isReported` accepts — it may mark them, and answers the same when asked again —, each
    /// once), their IDs, and whether they are exactly the members of `list` — found in two passes
    /// over the objects, from the last listed back, the second of which empties `pending`
    /// (letting go of each object at hand).
    ///
    /// The passes are apart so that no atomic operation runs between two stores into the set's
    /// table: the first copies the IDs (a retain of each ID's space) and reads the objects in
    /// order; the second moves each object into the set, where a large set's stores fall in
    /// memory the processor does not hold — an atomic operation waits for every store before it,
    /// and a retain beside each store made the processor wait for each of them in turn.
    private static func reported(
        taking pending: inout PendingObjectList, listedIn list: ChangedObjectList, where isReported: (ManagedObject) -> Bool
    ) -> (objects: Set<ManagedObject>, ids: [ManagedObjectID], listed: Bool) {
        var ids: [ManagedObjectID] = []
        ids.reserveCapacity(pending.count)
        var listed = true
        var passedOver = false
        pending.forEachFromLast { object in
            guard isReported(object) else {
                passedOver = true
                return
            }
            ids.append(object.objectID)
            if listed && !list.contains(object) { listed = false }
        }
        var objects = Set<ManagedObject>(minimumCapacity: pending.count)
        var repeated = false
        // Each object moves in (`update(with: consume object)`; `insert` hands back a copy of the
        // member: a retain and a release). An object listed twice is in the set already.
        while let object = pending.popLast() {
            if passedOver && !isReported(object) { continue }
            if objects.update(with: consume object) != nil { repeated = true }
        }
        // An object deleted, inserted again and deleted again was listed twice: its ID too.
        if repeated { ids = objects.map(\.objectID) }
        return (objects, ids, listed && ids.count == list.count)
    }

    /// Keeps, for the will-save and did-save of the save in progress, each set of objects that
    /// held exactly the members of the context's list of that kind (`listed`) when the lists were
    /// at `generations` (see ``SaveNotificationSets``).
    private func keepForSave(
        _ objects: NotificationObjectSets, _ changes: ContextChanges, listed: (inserted: Bool, updated: Bool, deleted: Bool),
        at generations: ChangeListGenerations, reassignments: Int
    ) {
        typealias Kept = SaveNotificationSets.Kept
        if listed.inserted {
            // Inserted objects get permanent IDs before did-save: their IDs serve will-save only.
            saveNotificationSets?.inserted = Kept(
                objects: objects.inserted, objectIDs: changes.heldInsertedObjectIDs, generation: generations.inserted, reassignments: reassignments)
        }
        if listed.updated {
            saveNotificationSets?.updated = Kept(
                objects: objects.updated, objectIDs: changes.heldUpdatedObjectIDs, generation: generations.updated, reassignments: reassignments)
        }
        if listed.deleted {
            saveNotificationSets?.deleted = Kept(
                objects: objects.deleted, objectIDs: changes.heldDeletedObjectIDs, generation: generations.deleted, reassignments: reassignments)
        }
    }

    /// The generations of the inserted, updated and deleted lists now.
    var changeListGenerations: ChangeListGenerations {
        ChangeListGenerations(inserted: insertedSet.generation, updated: updatedSet.generation, deleted: deletedSet.generation)
    }

    /// Posts a notification (objects under the object keys, IDs under the ID keys, the
    /// ``ContextChanges`` under `changes`) and feeds the async sequences of that kind.
    func post(_ name: Notification.Name, _ changes: ContextChanges, objects: NotificationObjectSets = NotificationObjectSets()) {
        typealias Key = NotificationKey
        var info: [AnyHashable: Any] = [Key.changes.rawValue: changes]
        // ID sets only after a save, as Core Data's: objects-did-change carries the objects (its
        // IDs are in `contextChanges`, made when read), and the new objects' temporary IDs hashed
        // into a set nobody asked for were 4 % of a save of 100,000 of them.
        if name != .managedObjectContextWillSave && name != .managedObjectContextObjectsDidChange {
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
