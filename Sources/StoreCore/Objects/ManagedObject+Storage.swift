import Foundation

/// Slot access with fault firing, queue checks, change tracking and inverse maintenance.
/// Every public accessor (by key or typed) goes through these.
extension ManagedObject {
    /// Checks the queue and loads the values of a fault.
    func willAccess() {
        guard let context = managedObjectContext else { return }
        context.checkQueue(accessing: self)
        if isFault { context.fulfillFault(self) }
    }

    func slotIndex(forKey key: String) throws(ModelError) -> Int {
        guard let index = entity.propertyIndexes[key] else {
            throw ModelError(.unknownKey, entity: entity.name, key: key, "no property '\(key)' on entity \(entity.name)")
        }
        return index
    }

    func recordFailedSet(_ error: any Error, forKey key: String) {
        guard let index = entity.propertyIndexes[key] else { return }
        state.failedSets[index] = error as? ObjectValidationError
            ?? ObjectValidationError(.wrongType, objectID: objectID, entity: entity.name, key: key, "the value could not be set: \(error)", underlyingError: error)
        managedObjectContext?.objectDidChange(self)
    }

    func noteChange(at index: Int) {
        changedIndexes.insert(index)
        managedObjectContext?.objectDidChange(self)
    }

    // MARK: Attributes

    func attributeValue(at index: Int) -> StoreValue {
        willAccess()
        if case .value(let value) = slots[index] { return value }
        return .null
    }

    func setAttributeValue(_ value: StoreValue, at index: Int) {
        willAccess()
        state.failedSets[index] = nil
        slots[index] = .value(value)
        noteChange(at: index)
    }

    // MARK: To-one

    func toOneObject(at index: Int) -> ManagedObject? {
        willAccess()
        switch slots[index] {
        case .toOne(let object):
            return object
        case .toOneID(let id):
            let object = id.flatMap { managedObjectContext?.registeredOrFaultObject(for: $0) }
            slots[index] = .toOne(object)
            return object
        default:
            return nil
        }
    }

    /// Sets a to-one relationship and keeps the inverse side in step (a relationship without
    /// an inverse, as Xcode models may have, is set on this side only).
    func setToOne(_ destination: ManagedObject?, at index: Int) {
        guard let relationship = entity.properties[index] as? RelationshipDescription else { return }
        let inverse = relationship.inverseRelationship
        let old = toOneObject(at: index)
        if old === destination { return }
        rawSetToOne(destination, at: index)
        if let old, let inverse { old.unlink(self, from: inverse) }
        if let destination, let inverse { destination.link(self, into: inverse) }
    }

    // MARK: To-many

    func toManyObjects(at index: Int) -> RelatedObjects {
        willAccess()
        switch slots[index] {
        case .toMany(let related):
            return related
        case .toManyIDs(let ids):
            let related = resolve(ids)
            slots[index] = .toMany(related)
            return related
        case .toManyFault:
            let ids = (entity.properties[index] as? RelationshipDescription).flatMap {
                managedObjectContext?.loadToMany($0, of: self)
            } ?? []
            let related = resolve(ids)
            slots[index] = .toMany(related)
            if committedSnapshot != nil { committedSnapshot?.toMany[entity.properties[index].name] = ids }
            return related
        default:
            return RelatedObjects()
        }
    }

    private func resolve(_ ids: [ManagedObjectID]) -> RelatedObjects {
        guard let context = managedObjectContext else { return RelatedObjects() }
        return RelatedObjects(ids.compactMap { context.registeredOrFaultObject(for: $0) })
    }

    /// Replaces a to-many relationship's contents and keeps every inverse in step (a
    /// relationship without an inverse changes on this side only).
    func setToMany(_ objects: [ManagedObject], at index: Int) {
        guard let relationship = entity.properties[index] as? RelationshipDescription else { return }
        let inverse = relationship.inverseRelationship
        let current = toManyObjects(at: index)
        let wanted = RelatedObjects(objects)
        for object in current.objects where !wanted.contains(object) { removeFromToMany(object, at: index, inverse: inverse) }
        for (position, object) in wanted.objects.enumerated() where !current.contains(object) {
            addToToMany(object, at: index, inverse: inverse, position: relationship.isOrdered ? position : nil)
        }
        if relationship.isOrdered, toManyObjects(at: index).objects.map(ObjectIdentifier.init) != wanted.objects.map(ObjectIdentifier.init) {
            slots[index] = .toMany(wanted)
            noteChange(at: index)
        }
    }

    func addToToMany(_ object: ManagedObject, at index: Int, inverse: RelationshipDescription?, position: Int? = nil) {
        var related = toManyObjects(at: index)
        guard related.insert(object, at: position) else { return }
        slots[index] = .toMany(related)
        noteChange(at: index)
        if let inverse { object.link(self, into: inverse) }
    }

    func removeFromToMany(_ object: ManagedObject, at index: Int, inverse: RelationshipDescription?) {
        var related = toManyObjects(at: index)
        guard related.remove(object) else { return }
        slots[index] = .toMany(related)
        noteChange(at: index)
        if let inverse { object.unlink(self, from: inverse) }
    }

    // MARK: Inverse side (no further propagation except stealing for one-to-many)

    /// Makes `self.relationship` include `source` (the other side already points at self).
    func link(_ source: ManagedObject, into relationship: RelationshipDescription) {
        guard let index = entity.propertyIndexes[relationship.name] else { return }
        if relationship.isToMany {
            var related = toManyObjects(at: index)
            if related.insert(source) {
                slots[index] = .toMany(related)
                noteChange(at: index)
            }
        } else {
            let previous = toOneObject(at: index)
            if previous === source { return }
            rawSetToOne(source, at: index)
            // self moved away from `previous`: take self out of previous's side.
            if let previous, let inverse = relationship.inverseRelationship { previous.unlinkRaw(self, from: inverse) }
        }
    }

    /// Makes `self.relationship` drop `source`.
    func unlink(_ source: ManagedObject, from relationship: RelationshipDescription) {
        guard let index = entity.propertyIndexes[relationship.name] else { return }
        if relationship.isToMany {
            unlinkRaw(source, from: relationship)
        } else if toOneObject(at: index) === source {
            rawSetToOne(nil, at: index)
        }
    }

    func unlinkRaw(_ object: ManagedObject, from relationship: RelationshipDescription) {
        guard let index = entity.propertyIndexes[relationship.name] else { return }
        if relationship.isToMany {
            var related = toManyObjects(at: index)
            if related.remove(object) {
                slots[index] = .toMany(related)
                noteChange(at: index)
            }
        } else if toOneObject(at: index) === object {
            rawSetToOne(nil, at: index)
        }
    }

    func rawSetToOne(_ object: ManagedObject?, at index: Int) {
        willAccess()
        slots[index] = .toOne(object)
        noteChange(at: index)
    }

    // MARK: Snapshots

    /// The object's current stored values as a snapshot (to-many only where loaded, unless `allToMany`).
    func currentSnapshot(allToMany: Bool = false) -> StoreSnapshot {
        willAccess()
        var values: [String: StoreValue] = [:]
        var toMany: [String: [ManagedObjectID]] = [:]
        for (index, property) in entity.properties.enumerated() where !property.isTransient {
            switch slots[index] {
            case .value(let value): values[property.name] = value
            case .toOne(let object): values[property.name] = object.map { .objectID($0.objectID) } ?? .null
            case .toOneID(let id): values[property.name] = id.map(StoreValue.objectID) ?? .null
            case .toMany(let related): toMany[property.name] = related.objects.map(\.objectID)
            case .toManyIDs(let ids): toMany[property.name] = ids
            case .toManyFault:
                if allToMany { toMany[property.name] = toManyObjects(at: index).objects.map(\.objectID) }
            }
        }
        return StoreSnapshot(objectID: objectID, version: version, values: values, toMany: toMany)
    }

    /// Fills the slots from a snapshot (keeping transient values) and marks the object clean.
    func load(_ snapshot: StoreSnapshot) {
        for (index, property) in entity.properties.enumerated() {
            if let attribute = property as? AttributeDescription {
                if attribute.isTransient {
                    if isFault { slots[index] = .value(attribute.defaultValue) }
                    continue
                }
                slots[index] = .value(snapshot.values[property.name] ?? .null)
            } else if let relationship = property as? RelationshipDescription {
                if relationship.isToMany {
                    slots[index] = snapshot.toMany[property.name].map(Slot.toManyIDs) ?? .toManyFault
                } else if case .objectID(let id) = snapshot[property.name] {
                    slots[index] = .toOneID(id)
                } else {
                    slots[index] = .toOneID(nil)
                }
            }
        }
        committedSnapshot = snapshot
        version = snapshot.version
        changedIndexes.removeAll()
        isFault = false
        state.faultFailure = nil
    }

    /// Drops the values; the next access loads them again.
    func turnIntoFault() {
        isFault = true
        committedSnapshot = nil
        changedIndexes.removeAll()
        for index in slots.indices { slots[index] = .toManyFault }
        didTurnIntoFault()
    }

    /// Breaks reference cycles when the object leaves its context.
    func detach() {
        for index in slots.indices { slots[index] = .toManyFault }
        isFault = true
        managedObjectContext = nil
    }
}
