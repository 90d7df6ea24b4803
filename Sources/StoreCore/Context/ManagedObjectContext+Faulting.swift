import Foundation

extension ManagedObjectContext {
    /// Loads a fault's values (from the row it was fetched with, or the parent store); a
    /// fault that cannot be loaded records why, and reading it throws that error.
    func fulfillFault(_ object: ManagedObject) {
        if loadWaitingRow(of: object) { return }
        let id = object.objectID
        let snapshot: StoreSnapshot?
        do {
            snapshot = try parentStore().snapshotForChild(id)
        } catch let error as StoreError {
            object.state.faultFailure = error
            return
        } catch {
            object.state.faultFailure = StoreError(.io, objectID: id, "the object's values could not be loaded: \(error)", underlying: error)
            return
        }
        guard let snapshot else {
            if handleInaccessibleFault(object) { return }
            object.state.faultFailure = StoreError(.objectNotFound, objectID: id, "the object's values could not be loaded: no store holds it (it may have been deleted)")
            return
        }
        object.load(snapshot)
        object.awakeFromFetch()
    }

    /// Fills a fault from the row it was fetched with, when it waits with one that is still
    /// fresh (see ``stalenessInterval``); `false` otherwise.
    func loadWaitingRow(of object: ManagedObject) -> Bool {
        guard object.hasWaitingRow, isFresh(object) else { return false }
        if !object.loadWaitingValues(), let snapshot = object.waitingRow { object.load(snapshot) }
        object.awakeFromFetch()
        return true
    }

    /// The IDs a to-many relationship of `object` holds in the parent store (none for an object
    /// inserted here and never saved: its stores hold nothing for it yet, even once it has a
    /// permanent ID).
    ///
    /// - Throws: the store's error when it cannot answer.
    func loadToMany(_ relationship: RelationshipDescription, of object: ManagedObject) throws -> [ManagedObjectID] {
        if object.state.isInserted && (parent == nil || object.objectID.isTemporaryID) { return [] }
        return try parentStore().relationshipForChild(relationship.name, of: object.objectID)
    }

    /// The values `object` has in the parent store.
    ///
    /// - Throws: the store's error when it cannot answer.
    func savedSnapshot(of object: ManagedObject) throws -> StoreSnapshot? {
        try parentStore().committedSnapshotForChild(object.objectID)
    }

    /// The objects for `ids`, their values loaded in one request to the store for the faults among them.
    func materialize(_ ids: [ManagedObjectID]) -> [ManagedObject] {
        var objects: [ManagedObject] = [], faults: [ManagedObject] = []
        objects.reserveCapacity(ids.count)
        for id in ids {
            guard let object = registeredOrFaultObject(for: id) else { continue }
            objects.append(object)
            if object.isFault { faults.append(object) }
        }
        fulfillFaults(faults, batchSize: max(faults.count, 1))
        return objects
    }

    /// Loads the values of faults, `batchSize` objects per store request (deleting or changing
    /// many unread objects costs a few queries, not one each). A fault the store does not
    /// return, or whose batch fails, stays a fault: reading it reports why.
    func fulfillFaults(_ objects: [ManagedObject], batchSize: Int = 500) {
        var pending: [ManagedObject] = []
        for object in objects where object.isFault && !loadWaitingRow(of: object) { pending.append(object) }
        for start in stride(from: 0, to: pending.count, by: batchSize) {
            let batch = pending[start..<min(start + batchSize, pending.count)]
            guard let snapshots = try? parentStore().snapshotsForChild(batch.map(\.objectID)) else { continue }
            // The snapshots come in the order asked, leaving out objects the store does not hold:
            // each is matched by walking the batch, not by a lookup in the registration table.
            var next = batch.startIndex
            for snapshot in snapshots {
                var position = next
                while position < batch.endIndex, batch[position].objectID != snapshot.objectID { position += 1 }
                let object: ManagedObject?
                if position < batch.endIndex {
                    object = batch[position]
                    next = position + 1
                } else {
                    object = registered[snapshot.objectID]
                }
                guard let object, object.isFault else { continue }
                object.load(snapshot)
                object.awakeFromFetch()
            }
        }
    }
}
