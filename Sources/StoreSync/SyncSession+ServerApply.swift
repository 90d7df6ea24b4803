import Foundation
import StoreCore

extension SyncSession {
    /// On the server context: the attributes other clients changed since this client last
    /// pulled, by server object — where a push meets them, it is a conflict.
    func serverChangesSinceLastPull() throws -> [ManagedObjectID: Set<String>] {
        guard let pulled = pulledTransaction else { return [:] }
        var changed: [ManagedObjectID: Set<String>] = [:]
        for transaction in try history(of: server, storeID: serverStoreID, after: pulled, side: "server") where !isOwnPush(transaction.author) {
            for change in transaction.changes ?? [] where change.changeType != .delete {
                let id = change.changedObjectID
                guard let entityPlan = plan.plan(for: id.entityName) else { continue }
                changed[id, default: []].formUnion(change.changeType == .insert ? Set(entityPlan.attributes) : change.updatedProperties ?? [])
            }
        }
        return changed
    }

    /// The author of this client's server transactions: the objects' values are this client's own.
    var pushAuthor: String { "\(options.transactionAuthor).push.\(clientID)" }
    /// The author of this client's server transactions in which the conflict resolver chose a
    /// value other than this client's (its pull must read them back).
    var resolvedPushAuthor: String { pushAuthor + ".resolved" }

    func isOwnPush(_ author: String?) -> Bool { author == pushAuthor || author == resolvedPushAuthor }

    /// On the server context: one local transaction's records. Objects missing on the server
    /// were deleted there: an update of one is dropped (delete wins).
    func apply(_ transaction: SyncPushTransaction, map: SyncIdentityMap, conflictCandidates: [ManagedObjectID: Set<String>]) throws {
        server.transactionAuthor = pushAuthor
        try map.load(globalIDs: SyncRecord.globalIDs(of: transaction.records))
        var objects: [String: ManagedObject] = [:]
        // Deletes and creations first, so values can name objects created in the same transaction.
        for record in transaction.records {
            let existing = try map.objectID(for: record.globalID).flatMap { try Self.existing($0, in: server) }
            switch record.kind {
            case .delete:
                if let existing {
                    server.delete(existing)
                    summary.pushed.deleted += 1
                }
                try map.removeRow(for: record.globalID)
                objects[record.globalID] = nil
            case .upsert:
                if let existing {
                    objects[record.globalID] = existing
                } else if record.isInsert, try map.objectID(for: record.globalID) == nil, plan.plan(for: record.entityName)?.insertsAsRows == true {
                    // No relationship can name it and no conflict can touch it: a row written with the save.
                    try map.insertNew(record.entityName, globalID: record.globalID, values: record.attributes)
                    summary.pushed.inserted += 1
                } else if record.isInsert, try map.objectID(for: record.globalID) == nil {
                    let object = try server.insertNewObject(forEntityName: record.entityName)
                    try map.assign(record.globalID, to: object)
                    objects[record.globalID] = object
                    summary.pushed.inserted += 1
                }
            }
        }
        for record in transaction.records where record.kind == .upsert {
            guard let object = objects[record.globalID], !object.isDeleted else { continue }
            let candidates = object.objectID.isTemporaryID ? [] : conflictCandidates[object.objectID] ?? []
            let changed = try Self.write(record, into: object, keep: [], map: map) { key, local, stored in
                guard candidates.contains(key), local != stored, let resolver = self.options.conflictResolver else { return local }
                self.summary.conflicts += 1
                let chosen = switch resolver(SyncConflict(entityName: record.entityName, globalID: record.globalID, key: key, localValue: local, serverValue: stored)) {
                case .keepLocal: local
                case .keepServer: stored
                case .use(let value): value
                }
                if chosen != local { self.server.transactionAuthor = self.resolvedPushAuthor }
                return chosen
            }
            if changed && !object.isInserted { summary.pushed.updated += 1 }
        }
        try dropIdentitiesOfCascadedDeletes(in: server, map: map)
    }

    /// Deletes the identity rows of objects a delete rule removed with the ones deleted by name.
    func dropIdentitiesOfCascadedDeletes(in context: ManagedObjectContext, map: SyncIdentityMap) throws {
        context.processPendingChanges()
        let deleted = context.deletedObjects.filter { !SyncEngine.isBookkeeping($0.entity.name) }.map(\.objectID)
        try map.load(objectIDs: deleted)
        for id in deleted {
            if let globalID = try map.globalID(for: id) { try map.removeRow(for: globalID) }
        }
    }
}
