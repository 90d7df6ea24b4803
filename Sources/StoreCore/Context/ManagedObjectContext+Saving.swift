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
    /// New objects that duplicate a stored object's (or each other's) values for a uniqueness
    /// constraint are resolved by the ``mergePolicy`` before anything is written — the
    /// import-and-dedupe pattern: under `.mergeByPropertyObjectTrump` or `.overwrite` the stored
    /// object takes the new values, under `.mergeByPropertyStoreTrump` or `.rollback` it keeps its
    /// own; either way the first new object becomes the stored object and the other duplicates
    /// are deleted (see ``MergePolicy/resolve(constraintConflicts:in:)``). A stored object this
    /// save moves onto another stored object's values is resolved the same way (it merges into
    /// that object), and values another writer stores between the check and the write are
    /// resolved once more before the save gives up. Both kinds of conflict
    /// reach the policy through ``MergePolicy/resolve(mergeConflicts:in:)``, as in Core Data.
    ///
    /// - Throws: ``ObjectValidationError`` (for constraint conflicts under ``MergePolicy/error``:
    ///   `.uniquenessConstraint` with ``ObjectValidationError/constraintConflicts``),
    ///   ``MergeConflictError`` (under ``MergePolicy/error``) or ``StoreError``.
    public func save() throws {
        checkQueue(accessing: nil)
        guard !isSaving else { return }
        isSaving = true
        saveNotificationSets = SaveNotificationSets()
        defer {
            isSaving = false
            saveNotificationSets = nil
        }
        processPendingChanges()
        guard hasChanges || !pendingRowInsertions.isEmpty else { return }

        post(.managedObjectContextWillSave, willSaveChanges())
        // The new objects' IDs of then serve no later notification (did-save names their permanent
        // IDs): let them go rather than hold a million-entry set through the save.
        saveNotificationSets?.inserted?.objectIDs = LazyObjectIDSet()
        // Nor, in a large save, the updated objects' (see `updatedIDSetReuseLimit`): did-save makes
        // their set again.
        if updatedSet.count > updatedIDSetReuseLimit { saveNotificationSets?.updated?.objectIDs = LazyObjectIDSet() }
        // The lists as they are now (copies: a hook that changes the context changes its own lists).
        for list in [insertedSet, updatedSet, deletedSet] { list.forEachObject { $0.willSave() } }
        processPendingChanges()

        if let error = ObjectValidationError.combining(validationErrors()) { throw error }
        try checkUnreadRelationships()
        try checkPendingRowInsertions()
        var resolvedAgain = false
        while true {
            if resolvesConstraintConflictsBeforeSaving {
                let conflicts = try findConstraintConflicts()
                if !conflicts.isEmpty { try resolveConstraintConflicts(conflicts) }
            }
            // The lists' generations before anything below could change them (a change makes the
            // save's finish treat the lists as changed: the safe way).
            let generations = changeListGenerations
            // Relationships held as IDs are resolved to objects as the objects are taken, before IDs
            // change (objects none of which has relationships are not walked for it).
            let inserted = insertedSet.mayHoldRelationships ? insertedSet.values { $0.resolveReferences() } : insertedSet.values
            let updated = updatedSet.mayHoldRelationships ? updatedSet.values { $0.resolveReferences() } : updatedSet.values
            // A root context reads the versions of faults deleted without being read (optimistic
            // locking needs them): which they are is seen as the objects are taken.
            var unreadFaults: [ManagedObject] = []
            let deleted = parent != nil ? deletedSet.values : deletedSet.values { object in
                if isUnreadFault(object) { unreadFaults.append(object) }
            }
            do {
                try write(inserted, updated, deleted, unreadFaults: unreadFaults, generations)
                return
            } catch let refusal as ObjectValidationError where refusal.code == .uniquenessConstraint && refusal.constraintConflicts.isEmpty {
                // Another writer stored the same values between the check and the write: resolve once more.
                if resolvesConstraintConflictsBeforeSaving, !resolvedAgain {
                    resolvedAgain = true
                    continue
                }
                // Name the objects in conflict, as the merge policy would have seen them.
                let conflicts: [ConstraintConflict]
                do { conflicts = try findConstraintConflicts() } catch { throw refusal }
                guard !conflicts.isEmpty else { throw refusal }
                throw ObjectValidationError(constraintConflicts: conflicts)
            }
        }
    }

    /// The will-save notification's changes: the IDs the save's objects-did-change carried where
    /// they are the lists' members still (see ``SaveNotificationSets``), else the lists' own.
    private func willSaveChanges() -> ContextChanges {
        let kept = saveNotificationSets
        let inserted = kept?.inserted?.reusableIDs(at: insertedSet.generation, reassignments: reassignments)
            ?? LazyObjectIDSet(building: insertedSet.values.map(\.objectID))
        let updated = kept?.updated?.reusableIDs(at: updatedSet.generation, reassignments: reassignments)
            ?? LazyObjectIDSet(building: updatedSet.values.map(\.objectID))
        let deleted = kept?.deleted?.reusableIDs(at: deletedSet.generation, reassignments: reassignments)
            ?? LazyObjectIDSet(building: deletedSet.values.map(\.objectID))
        return ContextChanges(kind: .willSave, contextName: name, inserted: inserted, updated: updated, deleted: deleted)
    }

    /// Writes the changes to the parent or the stores and finishes the save (`generations`: the
    /// change lists' when the objects were taken from them).
    private func write(
        _ inserted: [ManagedObject], _ updated: [ManagedObject], _ deleted: [ManagedObject], unreadFaults: [ManagedObject],
        _ generations: ChangeListGenerations
    ) throws {
        var permanentIDs: [ManagedObjectID: ManagedObjectID] = [:]
        let saved: StoreChangeSet
        if let parent {
            saved = makeChangeSet(inserted, updated, deleted)
            try parent.performAndWait { try parent.applyChildChanges(saved, from: self) }
        } else {
            (saved, permanentIDs) = try saveToStores(inserted, updated, deleted, unreadFaults: unreadFaults)
        }
        finishSave(inserted, updated, deleted, saved: consume saved, generations: generations)
        if parent == nil { advanceQueryGeneration() }
        releaseUnreferencedObjectsIfGrown()
        if !permanentIDs.isEmpty { passPermanentIDsToChildren(permanentIDs) }
    }

    /// Refuses the save when a changed object holds a to-many relationship its store could not
    /// read: saving it would write what was never read (for a many-to-many, drop every link row).
    private func checkUnreadRelationships() throws {
        try updatedSet.forEachObject { object in
            guard !object.state.relationshipFailures.isEmpty else { return }
            if let (_, failure) = object.state.relationshipFailures.min(by: { $0.key < $1.key }) { throw failure }
        }
    }

    /// Saves through the coordinator; returns what was saved and the permanent ID each new object
    /// received, by its temporary ID (for child contexts: empty when there are none). New objects get their permanent IDs inside the save (one
    /// write transaction); a failed save gives them back their temporary IDs.
    private func saveToStores(
        _ inserted: [ManagedObject], _ updated: [ManagedObject], _ deleted: [ManagedObject], unreadFaults: [ManagedObject]
    ) throws -> (StoreChangeSet, [ManagedObjectID: ManagedObjectID]) {
        guard let coordinator = persistentStoreCoordinator else { throw StoreError(.noStores, "\(self) has no persistent store coordinator") }
        // One pass over the new objects: those needing IDs, their temporary IDs and the runs of
        // entities to ask keys for. The save holds these while it writes, beside every object and
        // its snapshot, so they are kept small: the new objects are `inserted` itself unless some
        // already have permanent IDs (`obtainPermanentIDs(for:)`), and the temporary IDs — keys
        // numbered in order — a compact list (a run of keys as its first).
        let assigned = assignedStores
        var someHavePermanentIDs: [ManagedObject]?
        var temporaryIDs = CompactObjectIDList.Builder()
        var requests: [NewObjectRun] = []
        var lastEntity: EntityDescription?
        var relates = false
        for (position, object) in inserted.enumerated() {
            guard object.objectID.isTemporaryID else {
                if someHavePermanentIDs == nil { someHavePermanentIDs = Array(inserted[..<position]) }
                continue
            }
            someHavePermanentIDs?.append(object)
            temporaryIDs.append(object.objectID)
            relates = relates || object.entity.layout.hasRelationships
            // A run of one entity (without assigned stores) adds to its last run without reading the name.
            if assigned.isEmpty, object.entity === lastEntity, !requests.isEmpty {
                requests[requests.count - 1].count += 1
                continue
            }
            lastEntity = object.entity
            NewObjectRun.append(entity: object.entity.name, store: assigned.isEmpty ? nil : assigned[ObjectIdentifier(object)], to: &requests)
        }
        // Rows written with the save (``insertRowsWithNextSave(_:)``) take their IDs after the objects'.
        for entityName in pendingRowEntityNames { NewObjectRun.append(entity: entityName, store: nil, to: &requests) }
        let needingIDs = someHavePermanentIDs ?? inserted
        let temporaryIDList = temporaryIDs.list
        try readDeletedFaults(unreadFaults)
        var attempt = 0
        while true {
            do {
                if let conflict = try lockedObjectConflicts() { throw conflict }
                let changes = try coordinator.save(newObjects: requests) { permanentIDs in
                    // When every new object needs an ID and none holds relationships (whose snapshots
                    // name other new objects by their permanent IDs), each takes its ID as its snapshot is made.
                    let assignsWhileMaking = needingIDs.count == inserted.count && !relates
                    if !assignsWhileMaking {
                        for (object, id) in zip(needingIDs, permanentIDs) { reassign(object, to: id) }
                    }
                    var changes = makeChangeSet(inserted, updated, deleted, permanentIDs: assignsWhileMaking ? permanentIDs : nil)
                    if !pendingRowInsertions.isEmpty {
                        changes.inserted += try makePendingRowSnapshots(permanentIDs.ids(in: needingIDs.count..<permanentIDs.count)[...])
                    }
                    return changes
                }
                // Only child contexts need the permanent IDs by temporary ID.
                guard children.withLock({ !$0.isEmpty }) else { return (changes, [:]) }
                return (changes, Dictionary(uniqueKeysWithValues: zip(temporaryIDList, needingIDs.map(\.objectID))))
            } catch {
                for (object, id) in zip(needingIDs, temporaryIDList) where object.objectID != id { reassign(object, to: id) }
                guard let conflict = error as? MergeConflictError, attempt < 3 else { throw error }
                attempt += 1
                try mergePolicy.resolve(mergeConflicts: conflict.conflicts, in: self)
            }
        }
    }

    /// Whether a deleted object of this context is a fault whose version the save must read
    /// (a fault fetched with its row already knows it).
    private func isUnreadFault(_ object: ManagedObject) -> Bool {
        object.isFault && !object.objectID.isTemporaryID && !object.hasWaitingRow && object.contextLink === link
    }

    /// Reads the versions of objects deleted without being read (optimistic locking needs them),
    /// a batch of rows per store request, before the save's transaction begins.
    private func readDeletedFaults(_ faults: [ManagedObject]) throws {
        // Relationships resolved since the objects were taken may have brought some their rows.
        let faults = faults.filter(isUnreadFault)
        guard !faults.isEmpty else { return }
        fulfillFaults(faults)
        for object in faults where object.isFault {
            object.willAccess()
            if let failure = object.state.faultFailure, failure.code != .objectNotFound { throw failure }
        }
    }

    /// The change set of a save. With `permanentIDs` (one per new object, in order, and perhaps
    /// more after them), each new object is given its permanent ID just before its snapshot is made.
    func makeChangeSet(
        _ inserted: [ManagedObject], _ updated: [ManagedObject], _ deleted: [ManagedObject], permanentIDs: CompactObjectIDList? = nil
    ) -> StoreChangeSet {
        var changes = StoreChangeSet()
        changes.contextName = name
        changes.transactionAuthor = transactionAuthor
        // A root save gives new objects version 1: their snapshots carry it already.
        let insertedVersion: Int64? = parent == nil ? 1 : nil
        changes.inserted.reserveCapacity(inserted.count)
        // The registration table's array for the new keys is made at its full length once, not
        // doubled as they come (half of it unused, beside the temporary keys' at the save's peak).
        if let permanentIDs, let last = inserted.indices.last { registered.reserve(upTo: permanentIDs[last], adding: inserted.count) }
        var ids = permanentIDs?.makeIterator()
        for object in inserted {
            if let id = ids?.next() { reassign(object, to: id) }
            changes.inserted.append(object.currentSnapshot(allToMany: true, version: insertedVersion))
        }
        // Reserved whole: grown by doubling, a million updates held the array twice over (75 MB
        // rather than 48) at the save's peak.
        changes.updated.reserveCapacity(updated.count)
        // Updates changing the same attributes share their held-property mask.
        var sharedHolding = StoreSnapshot.SharedHolding()
        for object in updated where object.managedObjectContext === self {
            let snapshot = object.changedSnapshot(sharing: &sharedHolding)
            if !snapshot.heldProperties.isEmpty { changes.updated.append(snapshot) }
        }
        // Faults deleted without being read were read just before (`readDeletedFaults`), or by the
        // parent context when it applies these changes.
        changes.deleted.reserveCapacity(deleted.count)
        for object in deleted where !object.objectID.isTemporaryID && object.contextLink === link {
            changes.deleted.append(StoreSnapshot.partial(objectID: object.objectID, version: object.version, entity: object.entity))
        }
        return changes
    }

    private func finishSave(
        _ inserted: [ManagedObject], _ updated: [ManagedObject], _ deleted: [ManagedObject], saved: consuming StoreChangeSet,
        generations: ChangeListGenerations
    ) {
        let toParent = parent != nil
        // When nothing joined or left the lists since the save took its objects (the usual case),
        // they hold exactly those: each object leaves its list as it is marked saved (released
        // while at hand), and the lists are let go whole rather than walked again.
        let listsUnchanged = changeListGenerations == generations
        // A new object keeps the saved snapshot (over its own values array, no copy) as its
        // committed values: letting a large save's snapshots go here cost the save their freeing.
        for (object, index) in zip(inserted, saved.inserted.indices) {
            object.state.isInserted = false
            if listsUnchanged { insertedSet.letGoOfSlot(of: object) }
            if !toParent { object.version = 1 }
            if saved.inserted[index].holdsStoredValuesOnly {
                // The values alone (read by position: a snapshot copied costs a retain per reference).
                object.committed = .values(saved.inserted[index].values)
            } else {
                var committed = saved.inserted[index]
                committed.version = object.version
                object.committed = .kept(committed)
            }
            object.changedProperties.removeAll()
        }
        // `saved.updated` follows `updated`, leaving out objects with nothing stored to save
        // (changed in transient properties only, which committed values leave out).
        var nextUpdate = 0
        for object in updated {
            object.state.isUpdated = false
            if listsUnchanged { updatedSet.letGoOfSlot(of: object) }
            if nextUpdate < saved.updated.count, saved.updated[nextUpdate].objectID == object.objectID {
                if !toParent { object.version += 1 }
                object.commitSavedChange(saved.updated[nextUpdate])
                nextUpdate += 1
            }
            object.changedProperties.removeAll()
        }
        for object in deleted {
            registered[object.objectID] = nil
            object.state.isDeleted = false
            if listsUnchanged { deletedSet.letGoOfSlot(of: object) }
        }
        if listsUnchanged {
            insertedSet.letGoOfAll()
            updatedSet.letGoOfAll()
            deletedSet.letGoOfAll()
        } else {
            insertedSet.removeAll()
            updatedSet.removeAll()
            deletedSet.removeAll()
        }
        deniedDeletions.removeAll()
        assignedStores.removeAll()
        conflictCheckedObjects.removeAll()
        pendingChanges.removeAll()

        for object in inserted { object.didSave() }
        for object in updated { object.didSave() }
        // Each deleted object leaves its context as its hook returns (one pass over them, cold by now).
        for object in deleted {
            object.didSave()
            object.detach()
        }
        if !toParent { readDerivedAttributes() }

        // The sets the save's objects-did-change carried, where the lists have not changed since.
        let kept = saveNotificationSets
        let keptInserted = kept?.inserted?.reusable(at: generations.inserted)
        let keptUpdated = kept?.updated?.reusable(at: generations.updated)
        let keptDeleted = kept?.deleted?.reusable(at: generations.deleted)
        // Let go of them here: the saved objects nothing else holds are released after the save.
        saveNotificationSets = SaveNotificationSets()
        // The new objects' IDs are their snapshots' (read from the change set, not from the objects);
        // rows written with the save follow the objects' snapshots and are inserted objects too.
        // Held as runs of keys: an array of them was the save's peak, beside the change set.
        var insertedIDs = CompactObjectIDList.Builder()
        for index in saved.inserted.indices { insertedIDs.append(saved.inserted[index].objectID) }
        // The change set is let go before the notifications, whose ID sets may be built now.
        saved = StoreChangeSet()
        let changes = ContextChanges(
            kind: .didSave, contextName: name, inserted: LazyObjectIDSet(building: insertedIDs.list),
            // Those objects-did-change carried, unless a large save let them go (`updatedIDSetReuseLimit`).
            updated: keptUpdated.flatMap { $0.objectIDs.isEmpty ? nil : $0.objectIDs } ?? LazyObjectIDSet(building: updated.map(\.objectID)),
            deleted: keptDeleted?.objectIDs ?? LazyObjectIDSet(building: deleted.map(\.objectID)))
        if !pendingRowInsertions.isEmpty { pendingRowInsertions.removeAll() }
        post(.managedObjectContextDidSave, changes, objects: NotificationObjectSets(
            inserted: keptInserted?.objects ?? Set(inserted), updated: keptUpdated?.objects ?? Set(updated),
            deleted: keptDeleted?.objects ?? Set(deleted)))
        post(.managedObjectContextDidSaveObjectIDs, changes)
        if let parent {
            parent.childDidSave(changes, from: self)
        } else {
            persistentStoreCoordinator?.contextDidSave(
                changes, entityNames: { Self.entityNames(of: [inserted, updated, deleted]) }, from: self)
            notifyChildren(changes, except: nil)
        }
    }

    /// The names of the entities a save touched, found without a set of every ID (the objects of
    /// one entity usually follow each other, so a name is looked at once per run of them).
    private static func entityNames(of objectLists: [[ManagedObject]]) -> Set<String> {
        var names = Set<String>()
        var lastEntity: EntityDescription?
        for objects in objectLists {
            for object in objects where object.entity !== lastEntity {
                lastEntity = object.entity
                names.insert(object.entity.name)
            }
        }
        return names
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
            object.contextLink = link
            registered.register(object, under: object.objectID)
            insertedSet.insert(object)
            object.state.isInserted = true
            pendingChanges.inserted.insert(object)
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
        if object.state.isInserted {
            insertedSet.remove(object)
            registered[object.objectID] = nil
        } else {
            updatedSet.remove(object)
            deletedSet.insert(object)
        }
        object.state.isInserted = false
        object.state.isUpdated = false
        object.state.isDeleted = true
        pendingChanges.deleted.insert(object)
    }

    func childDidSave(_ changes: ContextChanges, from child: ManagedObjectContext) {
        notifyChildren(changes, except: child)
    }
}
