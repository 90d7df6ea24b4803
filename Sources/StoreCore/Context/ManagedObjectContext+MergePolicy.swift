import Foundation

extension ManagedObjectContext {
    /// Applies the merge policy to objects in conflict, so that the save can be retried.
    func resolve(_ error: MergeConflictError) {
        for conflict in error.conflicts {
            guard let object = registered[conflict.objectID] else { continue }
            guard let stored = conflict.storeSnapshot else {
                // Deleted elsewhere: nothing left to update or delete.
                forget(object)
                continue
            }
            let changed = object.changedProperties
            switch mergePolicy {
            case .error:
                return
            case .rollback:
                updatedSet.remove(object)
                object.state.isUpdated = false
                object.load(stored)
            case .overwrite:
                object.version = stored.version
                for index in object.entity.layout.storedValues { object.changedProperties.insert(index) }
                for index in object.entity.layout.toManyIndexes where !object.entity.properties[index].isTransient {
                    object.changedProperties.insert(index)
                }
            case .mergeByPropertyObjectTrump, .mergeByPropertyStoreTrump:
                let committed = object.committedSnapshot
                let kept = changed.map { ($0, object.propertyState(at: $0)) }
                object.load(stored)
                let stored = stored.laidOut(as: object.entity)
                var stillChanged = PropertyMask()
                for (index, property) in kept {
                    let changedElsewhere = committed.map { $0[index] != stored[index] || $0.toMany(at: index) != stored.toMany(at: index) } ?? true
                    if mergePolicy == .mergeByPropertyStoreTrump && changedElsewhere { continue }
                    object.restore(property, at: index)
                    stillChanged.insert(index)
                }
                object.changedProperties = stillChanged
                if stillChanged.isEmpty {
                    updatedSet.remove(object)
                    object.state.isUpdated = false
                }
            }
        }
    }
}
