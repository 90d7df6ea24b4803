import Foundation

extension ManagedObjectContext {
    /// Records, for the open undo group, the state `object` is in before a change (once per
    /// group; a to-many relationship read for the first time during the group is added to it).
    func recordForUndo(_ object: ManagedObject, changing index: Int? = nil) {
        guard let undoManager, !isApplyingUndo, undoManager.isUndoRegistrationEnabled else { return }
        let id = ObjectIdentifier(object)
        if let position = undoRecord.positions[id] {
            // A relationship that was a fault when the group first met the object holds what the
            // store holds, which is what the group found.
            if let index, case .toManyFault? = undoRecord.entries[position].before.relations[safe: index], !object.isFault {
                undoRecord.entries[position].before.relations[index] = object.relations[index]
            }
            return
        }
        undoRecord.positions[id] = undoRecord.entries.count
        undoRecord.entries.append(UndoRecord.Entry(object: object, before: UndoObjectState(of: object, in: self)))
    }

    /// Closes the open undo group: what its objects became, registered with the undo manager as
    /// one action that puts them back (and registers the reverse).
    func flushUndoRecord() {
        guard let undoManager, !undoRecord.isEmpty else { return }
        var record = undoRecord
        undoRecord = UndoRecord()
        for position in record.entries.indices {
            record.entries[position].after = UndoObjectState(of: record.entries[position].object, in: self)
        }
        undoManager.registerUndo(withTarget: self) { context in context.applyUndo(record, restoringBefore: true) }
    }

    /// Forgets the open undo group and the undo manager's actions (rollback and reset).
    func discardUndo() {
        undoRecord = UndoRecord()
        undoManager?.removeAllActions()
    }

    /// Puts every object of `record` back in its state before (or after) the group, and
    /// registers the reverse.
    func applyUndo(_ record: UndoRecord, restoringBefore: Bool) {
        flushUndoRecord()
        isApplyingUndo = true
        defer { isApplyingUndo = false }
        for entry in record.entries {
            guard let after = entry.after else { continue }
            let (target, other) = restoringBefore ? (entry.before, after) : (after, entry.before)
            restore(entry.object, to: target, other: other)
        }
        undoManager?.registerUndo(withTarget: self) { context in context.applyUndo(record, restoringBefore: !restoringBefore) }
        postObjectsDidChange()
    }

    private func restore(_ object: ManagedObject, to target: UndoObjectState, other: UndoObjectState) {
        // Whether the parent store holds the object (it was saved and is not an unsaved insert).
        let inParent = registered[object.objectID] === object && !object.state.isInserted && object.managedObjectContext === self
        let savedSince = object.version != target.version
        object.contextLink = link
        if target.isFault && inParent {
            object.state.isDeleted = false
            deletedSet.remove(object)
            updatedSet.remove(object)
            object.state.isUpdated = false
            if !object.isFault { object.turnIntoFault() }
            pendingChanges.noteUpdate(of: object)
            return
        }
        object.keepCommittedValues()   // the values put back are not the saved ones
        object.values = target.values
        object.relations = target.relations
        object.isFault = false
        var changed = target.changedProperties
        if savedSince { changed.formUnion(target.differingProperties(from: other, layout: object.entity.layout)) }
        object.changedProperties = changed
        if target.isPresent {
            registered.register(object, under: object.objectID)
            object.state.isDeleted = false
            deletedSet.remove(object)
            if inParent {
                let updated = !changed.isEmpty
                object.state.isUpdated = updated
                if updated { updatedSet.insert(object) } else { updatedSet.remove(object) }
                pendingChanges.noteUpdate(of: object)
            } else {
                object.state.isInserted = true
                insertedSet.insert(object)
                pendingChanges.inserted.insert(object)
            }
        } else if inParent {
            object.state.isDeleted = true
            object.state.isUpdated = false
            updatedSet.remove(object)
            deletedSet.insert(object)
            pendingChanges.deleted.insert(object)
        } else {
            registered[object.objectID] = nil
            insertedSet.remove(object)
            object.state.isInserted = false   // and so no longer among `pendingChanges.inserted`
            object.state.isDeleted = false
            pendingChanges.deleted.insert(object)
        }
    }
}

extension ContiguousArray {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
