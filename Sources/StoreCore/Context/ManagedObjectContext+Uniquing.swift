import Foundation

// Uniquing: a context holds at most one object per ID (`registered`). Unchanged objects nobody
// references are let go as the table grows, unless `retainsRegisteredObjects` is set; reading
// one again makes a new fault with the same ID.
extension ManagedObjectContext {
    /// Registers `object` under its new ID (a temporary ID becoming permanent).
    func reassign(_ object: ManagedObject, to id: ManagedObjectID) {
        registered[object.objectID] = nil
        object.objectID = id
        registered.register(object, under: id)
        reassignments &+= 1
    }

    /// The registered object for `id`, or a new fault registered under it (nil when the model
    /// has no entity of that name).
    func registeredOrFaultObject(for id: ManagedObjectID) -> ManagedObject? {
        if let object = registered[id] { return object }
        guard let entity = managedObjectModel?.entitiesByName[id.entityName] else { return nil }
        let object = registerNewObject(id, of: entity)
        object.holdFaultValues()
        return object
    }

    /// A new object of `entity` registered under `id`, marked a fault and holding its initial
    /// values (which loading keeps for transient properties).
    private func registerNewObject(_ id: ManagedObjectID, of entity: EntityDescription) -> ManagedObject {
        let object = entity.managedObjectClass.init(entity: entity, insertInto: nil)
        object.objectID = id
        object.contextLink = link
        object.isFault = true
        registered.register(object, under: id)
        return object
    }

    /// The registered object for a fetched snapshot's ID, given the snapshot's values if it is a
    /// fault (a registered object with values keeps them, as in Core Data). With `asFault`, the
    /// values wait beside the fault until it is first touched; otherwise a new object is made
    /// loaded straight away, not as a fault filled afterwards. `entity` is the snapshot's entity
    /// in this context's model.
    func registeredObject(loading snapshot: consuming StoreSnapshot, of entity: EntityDescription, asFault: Bool) -> ManagedObject {
        let id = snapshot.objectID
        if let object = registered[id] {
            if object.isFault { deliver(consume snapshot, to: object, asFault: asFault) }
            return object
        }
        let object = registerNewObject(id, of: entity)
        if asFault {
            object.holdFaultValues()
            deliver(consume snapshot, to: object, asFault: true)
        } else {
            object.load(consume snapshot)
            object.awakeFromFetch()
        }
        return object
    }

    private func deliver(_ snapshot: consuming StoreSnapshot, to fault: ManagedObject, asFault: Bool) {
        if asFault {
            fault.version = snapshot.version
            fault.setCommitted(consume snapshot)
            if stalenessInterval >= 0 { fault.committedSnapshotTime = .now() }
        } else {
            fault.load(consume snapshot)
            fault.awakeFromFetch()
        }
    }

    /// Lets go of unchanged objects nothing else references once the context has doubled in
    /// size since the last pass (so the passes cost O(1) per registration, amortized), unless
    /// ``retainsRegisteredObjects`` is set. `held` objects are known to be referenced (a fetch's
    /// results): when fewer than 1,024 others could go, the pass is not worth its walk.
    func releaseUnreferencedObjectsIfGrown(holding held: Int = 0) {
        guard !retainsRegisteredObjects, registered.count >= Swift.max(1024, 2 * registeredAfterRelease), registered.count - held >= 1024
        else { return }
        registered.removeUnreferenced(where: Self.canRelease)
        registeredAfterRelease = registered.count
    }

    /// Forgets registered objects that nothing else references and that have no unsaved
    /// changes, so a batched result's earlier batches can be freed. An object still referenced
    /// (by the caller, another object or a change set) stays registered, so uniquing holds.
    func releaseUnreferencedObjects(_ ids: [ManagedObjectID]) {
        registered.removeUnreferenced(ids, where: Self.canRelease)
    }

    /// Whether an object only the table references may go: it has no unsaved changes and no
    /// failure a save must still report.
    private static func canRelease(_ object: ManagedObject) -> Bool {
        !object.hasChanges && !object.state.hasRelationshipFailures
    }
}
