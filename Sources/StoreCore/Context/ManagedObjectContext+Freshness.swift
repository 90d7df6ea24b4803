import Foundation

extension ManagedObjectContext {
    /// Whether a fault whose object was deleted elsewhere fires as a deleted object with empty
    /// values — nil, zero, empty relationships — rather than failing (Core Data's default, on).
    /// Off, reading such a fault's values by key throws ``StoreError`` (`objectNotFound`) and
    /// typed properties read as empty. ``inaccessibleFaultHandler`` decides per fault when set.
    ///
    /// For example:
    ///
    /// ```swift
    /// context.shouldDeleteInaccessibleFaults = false   // be told instead
    /// ```
    public func shouldHandleInaccessibleFault(_ fault: ManagedObject, for objectID: ManagedObjectID, triggeredByProperty property: PropertyDescription?) -> Bool {
        inaccessibleFaultHandler?(fault, objectID, property) ?? shouldDeleteInaccessibleFaults
    }

    /// Makes an inaccessible fault a deleted object with empty values, when the context says so.
    func handleInaccessibleFault(_ object: ManagedObject) -> Bool {
        guard shouldHandleInaccessibleFault(object, for: object.objectID, triggeredByProperty: nil) else { return false }
        let layout = object.entity.layout
        object.values = layout.nullValues
        if layout.hasRelationships { object.relations = RelationSlot.initial(for: layout) }
        object.isFault = false
        object.state.isDeleted = true
        object.state.faultFailure = nil
        return true
    }

    /// Whether a fault may be filled from the values its fetch brought, given ``stalenessInterval``.
    func isFresh(_ object: ManagedObject) -> Bool {
        guard stalenessInterval >= 0 else { return true }
        return object.committedSnapshotTime.isWithin(stalenessInterval)
    }

    /// Checks `object` for a conflict at the next save even if it is not changed (Core Data's
    /// optimistic locking for an object the save depends on): the save fails with
    /// ``MergeConflictError`` under ``MergePolicy/error`` — or applies the merge policy — when
    /// its stored version moved since the context read it.
    ///
    /// The check reads the object's stored version just before the save's transaction.
    ///
    /// For example:
    ///
    /// ```swift
    /// try context.detectConflicts(for: account)   // the order is only valid for this balance
    /// order.total = account.balance
    /// try context.save()
    /// ```
    ///
    /// - Throws: ``StoreError`` when the object is not registered in this context.
    public func detectConflicts(for object: ManagedObject) throws {
        checkQueue(accessing: object)
        guard object.managedObjectContext === self, registered[object.objectID] === object else {
            throw StoreError(.objectNotFound, objectID: object.objectID, "the object is not registered in \(self)")
        }
        guard !object.state.isInserted else { return }
        if object.isFault { object.willAccess() }
        conflictCheckedObjects[ObjectIdentifier(object)] = object
    }

    /// The conflicts of objects marked by ``detectConflicts(for:)`` (and not saved otherwise).
    func lockedObjectConflicts() throws -> MergeConflictError? {
        var conflicts: [MergeConflict] = []
        for object in conflictCheckedObjects.values where !object.state.isUpdated && !object.state.isDeleted && !object.state.isInserted {
            let stored = try savedSnapshot(of: object)
            guard stored?.version != object.version else { continue }
            conflicts.append(MergeConflict(objectID: object.objectID, expectedVersion: object.version, storeVersion: stored?.version ?? 0, storeSnapshot: stored))
        }
        return conflicts.isEmpty ? nil : MergeConflictError(conflicts: conflicts)
    }
}
