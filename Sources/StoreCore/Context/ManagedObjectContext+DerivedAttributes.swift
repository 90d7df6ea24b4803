import Foundation

extension ManagedObjectContext {
    /// After a save to the stores, reads back the derived attributes the stores computed (see
    /// ``AttributeDerivation``) for the registered objects whose entity has any, in one request
    /// per store. A property changed again since the save keeps its new value; a store that
    /// cannot answer leaves the old values, which the next fetch of the objects refreshes.
    func readDerivedAttributes() {
        guard let coordinator = persistentStoreCoordinator, let plan = managedObjectModel?.derivedAttributes, !plan.isEmpty else { return }
        var ids: [ManagedObjectID] = []
        for object in registered.objects where !object.isFault && !object.objectID.isTemporaryID && plan.entries[object.objectID.entityName] != nil {
            ids.append(object.objectID)
        }
        guard !ids.isEmpty, let rows = try? coordinator.snapshots(for: ids) else { return }
        for row in rows {
            guard let object = registered[row.objectID], let entries = plan.entries[row.objectID.entityName] else { continue }
            for entry in entries where row.heldProperties.contains(entry.index) {
                let value = row[entry.index]
                object.setCommittedValue(value, at: entry.index)
                if !object.changedProperties.contains(entry.index) { object.values[entry.index] = value }
            }
        }
    }
}
