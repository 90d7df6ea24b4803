import Foundation

extension ManagedObjectContext {
    /// Inserts a new object (one created with a `nil` context); it is saved by the next save.
    public func insert(_ object: ManagedObject) {
        checkQueue(accessing: object)
        if object.managedObjectContext === self, registered[object.objectID] === object {
            if object.state.isDeleted {
                if undoManager != nil { recordForUndo(object) }
                undelete(object)
            }
            return
        }
        if undoManager != nil { recordForUndo(object) }
        object.contextLink = link
        registered.register(object, under: object.objectID)
        insertedSet.insert(object)
        object.state.isInserted = true
        object.state.insertionReported = false
        pendingChanges.inserted.insert(object)
        object.awakeFromInsert()
    }

    /// Creates and inserts an object of the named entity.
    ///
    /// For example:
    ///
    /// ```swift
    /// let comment = try context.insertNewObject(forEntityName: "Comment")
    /// try comment.setValue("Lovely", forKey: "text")
    /// ```
    ///
    /// - Throws: ``ModelError`` when the entity does not exist or is abstract.
    @discardableResult
    public func insertNewObject(forEntityName name: String) throws -> ManagedObject {
        let entity = try entityForInsertion(named: name, class: nil)
        return entity.managedObjectClass.init(entity: entity, insertInto: self)
    }

    /// Marks an object for deletion; delete rules are applied at the next
    /// ``processPendingChanges()`` (every save and fetch runs it).
    public func delete(_ object: ManagedObject) {
        checkQueue(accessing: object)
        // The object's link, not `managedObjectContext` (a weak load, a retain and a release per object).
        guard object.contextLink === link, !object.state.isDeleted else { return }
        if undoManager != nil {
            object.willAccess()   // its values, to put back
            recordForUndo(object)
        }
        if object.state.isInserted {
            insertedSet.remove(object)
            object.state.isInserted = false   // and so no longer among `pendingChanges.inserted`
            deletedInsertedObjects = true
        } else {
            updatedSet.remove(object)
            deletedSet.insert(object)
        }
        object.state.isDeleted = true
        object.state.isUpdated = false
        pendingChanges.deleted.insert(object)
        pendingDeletions.append(object)
    }

    private func undelete(_ object: ManagedObject) {
        let id = ObjectIdentifier(object)
        deletedSet.remove(object)
        deniedDeletions[id] = nil
        object.state.isDeleted = false
        if !object.hasCommittedState, !object.isFault {
            insertedSet.insert(object)
            object.state.isInserted = true
        } else if !object.changedProperties.isEmpty {
            updatedSet.insert(object)
            object.state.isUpdated = true
        }
    }

    /// The object with this ID: the registered one, or a new fault (no store access). Use
    /// ``existingObject(with:)`` to be told when the object does not exist.
    ///
    /// - Throws: ``ModelError`` when the ID names an entity the model does not have.
    public func object(with objectID: ManagedObjectID) throws -> ManagedObject {
        checkQueue(accessing: nil)
        guard let object = registeredOrFaultObject(for: objectID) else {
            throw ModelError(.unknownEntity, entity: objectID.entityName, "the model has no entity named \(objectID.entityName)")
        }
        return object
    }

    /// The object with this ID, with its values loaded.
    ///
    /// - Throws: ``StoreError`` (code `objectNotFound`) when no store holds it.
    public func existingObject(with objectID: ManagedObjectID) throws -> ManagedObject {
        checkQueue(accessing: nil)
        if let object = registered[objectID], !object.isFault || object.hasWaitingRow {
            object.willAccess()
            return object
        }
        guard let snapshot = try parentStore().snapshotForChild(objectID) else {
            throw StoreError(.objectNotFound, objectID: objectID, "no store holds this object")
        }
        let object = try self.object(with: objectID)
        if object.isFault {
            object.load(snapshot)
            object.awakeFromFetch()
        }
        return object
    }

    /// The registered object with this ID, if the context holds it.
    public func registeredObject(for objectID: ManagedObjectID) -> ManagedObject? {
        checkQueue(accessing: nil)
        return registered[objectID]
    }

    /// Gives new objects their permanent IDs now rather than at the next save.
    public func obtainPermanentIDs(for objects: [ManagedObject]) throws {
        checkQueue(accessing: nil)
        let pending = objects.filter { $0.objectID.isTemporaryID && $0.managedObjectContext === self }
        guard !pending.isEmpty else { return }
        if let outsider = pending.first(where: { !$0.state.isInserted }) {
            throw StoreError(.unsupportedRequest, objectID: outsider.objectID, "only objects inserted in this context can get permanent IDs here; the object comes from the parent context")
        }
        guard let coordinator = persistentStoreCoordinator else { throw try noCoordinator() }
        let ids = try coordinator.obtainPermanentIDs(for: pending.map { ($0.entity.name, assignedStores[ObjectIdentifier($0)]) })
        for (object, id) in zip(pending, ids) { reassign(object, to: id) }
    }

    /// Chooses the store a new object is saved to (by default, the first store whose
    /// configuration holds its entity).
    public func assign(_ object: ManagedObject, to store: any PersistentStore) {
        checkQueue(accessing: object)
        assignedStores[ObjectIdentifier(object)] = store.identifier
    }

    // MARK: Internals

    /// The entity a subclass's `init(context:)` inserts: the one its ``ManagedObject/entityName`` names.
    func entityForInsertion(of objectClass: ManagedObject.Type) throws(ModelError) -> EntityDescription {
        if let entity = managedObjectModel?.entitiesByClass[ObjectIdentifier(objectClass)], !entity.isAbstract { return entity }
        return try entityForInsertion(named: objectClass.entityName, class: objectClass)
    }

    func entityForInsertion(named name: String, class expected: ManagedObject.Type?) throws(ModelError) -> EntityDescription {
        guard let model = managedObjectModel else {
            throw ModelError(.unknownEntity, entity: name, "\(self) has no coordinator, so it has no model")
        }
        let entity = try model.entity(named: name)
        if entity.isAbstract {
            throw ModelError(.abstractEntity, entity: name, "\(name) is abstract; insert one of its sub-entities")
        }
        if let expected, !entity.managedObjectClass.isSubclassOrSame(of: expected) {
            throw ModelError(.classMismatch, entity: name, "entity \(name) is represented by \(entity.managedObjectClass), not \(expected)")
        }
        return entity
    }

    func objectDidChange(_ object: ManagedObject) {
        if object.state.isDeleted { return }
        // An inserted object stays inserted (it is saved whole), but a further change to it is
        // reported as an update by the next objectsDidChange, as Core Data does, so that
        // controllers and live queries move it.
        if object.state.isInserted {
            pendingChanges.noteUpdate(of: object)
            return
        }
        if !object.state.isUpdated {
            object.state.isUpdated = true
            updatedSet.insert(object)
        }
        pendingChanges.noteUpdate(of: object)
    }

    private func noCoordinator() throws -> StoreError {
        StoreError(.noStores, "\(self) has no persistent store coordinator")
    }
}
