import Foundation

extension ManagedObjectContext {
    /// Applies a merge policy type to objects changed elsewhere since they were read, so that the
    /// save can be retried (``MergePolicy/resolve(optimisticLockingConflicts:in:)``).
    func applyOptimisticLockingResolution(_ conflicts: [MergeConflict], type: MergePolicy.MergeType) {
        for conflict in conflicts {
            guard let object = registered[conflict.objectID] else { continue }
            guard let stored = conflict.storeSnapshot else {
                // Deleted elsewhere: nothing left to update or delete.
                forget(object)
                continue
            }
            let changed = object.changedProperties
            switch type {
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
                    if type == .mergeByPropertyStoreTrump && changedElsewhere { continue }
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
