import Foundation
import StoreCore

extension SyncSession {
    /// Pulls the server's history after the last pulled token — or, with `everything`, every
    /// object the server holds — into the local store in one save under the engine's transaction
    /// author, together with the identities of new objects and the new token.
    func pull(everything: Bool) throws {
        try step(.readServerChanges)
        let incoming = try server.performAndWait { everything ? try self.readWholeServer() : try self.readServerChanges() }
        guard let incoming else { return }
        try step(.applyPulled)
        try local.performAndWait { try self.applyPulled(incoming, replacingEverything: everything) }
        summary.pulledTransactions += incoming.transactionCount
        if everything { summary.pulledEverything = true }
    }

    struct Incoming {
        var lastNumber: Int64
        var transactionCount = 0
        var records: [SyncRecord] = []
        var deleted: Set<String> = []
    }

    /// On the server context: the current values of every object changed after the last pulled
    /// token, and the global identities deleted since (nil when nothing is new).
    private func readServerChanges() throws -> Incoming? {
        // Read: others' changes of objects (not of the engine's rows), and every deleted identity
        // row — of this client's own pushes only those (they hold its own values; see below).
        // The newest transaction, read first, covers those the narrowed read leaves out.
        let newest = try Self.newestTransaction(of: server)
        func compare(_ key: String, _ op: StoreComparison.Operator, _ value: StoreValue) -> StorePredicate {
            .comparison(StoreComparison(.keyPath(key), op, .constant(value)))
        }
        let othersOrDeletions = PersistentHistoryChange.fetchRequest(.or([
            .and([
                compare("transaction.author", .notEqualTo, .string(pushAuthor)),
                compare("changedEntity", .notEqualTo, .string(SyncEngine.identityEntityName)),
                compare("changedEntity", .notEqualTo, .string(SyncEngine.stateEntityName)),
            ]),
            .and([
                compare("changedEntity", .equalTo, .string(SyncEngine.identityEntityName)),
                compare("changeType", .equalTo, .integer(Int64(PersistentHistoryChange.ChangeType.delete.rawValue))),
            ]),
        ]))
        let transactions = try history(of: server, storeID: serverStoreID, after: pulledTransaction, side: "server", only: othersOrDeletions)
        guard let lastNumber = [newest, transactions.last?.transactionNumber].compactMap({ $0 }).max(),
              lastNumber > pulledTransaction ?? Int64.min
        else { return nil }
        var incoming = Incoming(lastNumber: lastNumber, transactionCount: transactions.filter { $0.author != pushAuthor }.count)
        var changed: [ManagedObjectID] = []
        var seen: Set<ManagedObjectID> = []
        // Objects deleted by others: a run member's identity row stays, so only the object's own
        // deletion tells (``SyncIdentityRun``).
        var deletedObjects: [ManagedObjectID] = []
        for transaction in transactions {
            // This client's own pushes hold its own values: only what other clients wrote (or what
            // a conflict resolver chose instead of this client's value) is read back. Deletions are
            // taken from every transaction: a delete rule on the server may have removed more
            // than this client deleted.
            let isOwn = transaction.author == pushAuthor
            for change in transaction.changes ?? [] {
                let id = change.changedObjectID
                if change.changeType == .delete {
                    if id.entityName == SyncEngine.identityEntityName, case .string(let globalID)? = change.tombstone?["globalID"] {
                        incoming.deleted.insert(globalID)
                    } else if !isOwn, plan.plan(for: id.entityName)?.insertsAsRows == true {
                        deletedObjects.append(id)
                    }
                } else if !isOwn, plan.plan(for: id.entityName) != nil, seen.insert(id).inserted {
                    changed.append(id)
                }
            }
        }
        let map = SyncIdentityMap(context: server, storeIdentifier: serverStoreID)
        try map.load(objectIDs: deletedObjects)
        for id in deletedObjects {
            if let globalID = try map.globalID(for: id) { incoming.deleted.insert(globalID) }
        }
        incoming.records = try read(changed, map: map)
        incoming.deleted.subtract(incoming.records.map(\.globalID))
        return incoming
    }

    /// On the server context: every object that has a global identity (a full pull).
    private func readWholeServer() throws -> Incoming {
        let token = try server.persistentStoreCoordinator?.currentPersistentHistoryToken()
        let map = SyncIdentityMap(context: server, storeIdentifier: serverStoreID)
        let ids = try map.loadEverything().compactMap { identity in
            plan.plan(for: identity.object.entityName) == nil ? nil
                : ManagedObjectID(entityName: identity.object.entityName, storeIdentifier: serverStoreID, primaryKey: identity.object.key)
        }
        var incoming = Incoming(lastNumber: token?.transactionNumber ?? 0)
        incoming.records = try read(ids, map: map)
        return incoming
    }

    /// Every synced property of these server objects (those with a global identity and still there).
    private func read(_ ids: [ManagedObjectID], map: SyncIdentityMap) throws -> [SyncRecord] {
        try map.load(objectIDs: ids)
        let (rows, existing) = try read(ids, in: server)
        var records: [SyncRecord] = []
        var objects: [(ManagedObject, SyncEntityPlan, String)] = []
        var destinations: [ManagedObjectID] = []
        for id in ids {
            guard let globalID = try map.globalID(for: id), let entityPlan = plan.plan(for: id.entityName) else { continue }
            if let row = rows[id] {
                records.append(Self.record(row, globalID: globalID, plan: entityPlan, updated: nil))
                continue
            }
            guard let object = existing[id] else { continue }
            objects.append((object, entityPlan, globalID))
            destinations += try Self.destinations(of: object, plan: entityPlan)
        }
        try map.load(objectIDs: destinations)
        for (object, entityPlan, globalID) in objects {
            var record = SyncRecord(globalID: globalID, entityName: entityPlan.name, kind: .upsert)
            record.isInsert = true
            record.members = try Self.read(object, attributes: entityPlan.attributes, toOnes: entityPlan.toOnes, memberLists: entityPlan.memberLists, into: &record, map: map)
            records.append(record)
        }
        return records
    }

    /// On the local context: writes what was pulled, keeping properties with local changes not
    /// yet pushed (their push comes later in server order and so wins), and saves once.
    private func applyPulled(_ incoming: Incoming, replacingEverything: Bool) throws {
        local.transactionAuthor = options.transactionAuthor
        let pending = try pendingLocalChanges()
        let map = SyncIdentityMap(context: local, storeIdentifier: localStoreID)
        try map.load(globalIDs: Array(incoming.deleted) + SyncRecord.globalIDs(of: incoming.records))

        var deletes = incoming.deleted
        if replacingEverything {
            // Objects this store pushed once that the server no longer holds were deleted there.
            let onServer = Set(incoming.records.map(\.globalID))
            for identity in try map.loadEverything() where !onServer.contains(identity.globalID) { deletes.insert(identity.globalID) }
        }
        for globalID in deletes {
            if let id = try map.objectID(for: globalID), let object = try Self.existing(id, in: local) {
                local.delete(object)
                summary.pulled.deleted += 1
            }
            try map.removeRow(for: globalID)
        }

        var objects: [String: ManagedObject] = [:]
        let ids = try incoming.records.map { try map.objectID(for: $0.globalID) }
        let stored = try Self.objects(ids.compactMap { $0 }, in: local)
        for (record, id) in zip(incoming.records, ids) {
            if let id {
                // Deleted here and not yet pushed: the delete wins.
                if let object = stored[id] { objects[record.globalID] = object }
            } else if plan.plan(for: record.entityName)?.insertsAsRows == true {
                // No relationship can name it and nothing local is pending on it: a row written with the save.
                try map.insertNew(record.entityName, globalID: record.globalID, values: record.attributes)
                summary.pulled.inserted += 1
            } else {
                let object = try local.insertNewObject(forEntityName: record.entityName)
                try map.assign(record.globalID, to: object)
                objects[record.globalID] = object
                summary.pulled.inserted += 1
            }
        }
        try map.flush()
        for record in incoming.records {
            guard let object = objects[record.globalID] else { continue }
            let keep = pending.properties[object.objectID] ?? []
            var written = record
            // Member lists with local edits not yet pushed: the server's members plus those edits.
            let row = map.row(for: record.globalID)
            let shadow = try row.map(MemberShadow.of) ?? [:]
            for key in record.members.keys where keep.contains(key) {
                let mine = try Set(Self.memberObjects(of: object, key).compactMap { try map.globalID(for: $0.objectID) })
                let before = Set(shadow[key] ?? [])
                written.members[key] = Array(Set(record.members[key] ?? []).union(mine.subtracting(before)).subtracting(before.subtracting(mine)))
            }
            let changed = try Self.write(written, into: object, keep: keep.subtracting(record.members.keys), map: map)
            if changed && !object.isInserted { summary.pulled.updated += 1 }
            if let row, !record.members.isEmpty { try MemberShadow.store(record.members, in: row) }
        }
        try dropIdentitiesOfCascadedDeletes(in: local, map: map)
        let state = try SyncStateRow.fetch(SyncStateRow.localKey, in: local)
        try state.set("pulledTransaction", incoming.lastNumber)
        if let ownOnly = pending.engineTransactionsOnlyThrough { try state.set("pushedTransaction", ownOnly) }
        try Self.save(local, side: "local")
        pulledTransaction = incoming.lastNumber
    }

    /// The properties of local objects changed after the last pushed token by anyone but the
    /// engine (all of them for objects inserted or deleted since).
    private func pendingLocalChanges() throws -> PendingLocalChanges {
        let pushed = try SyncStateRow.fetch(SyncStateRow.localKey, in: local).pushedTransaction
        var pending = PendingLocalChanges()
        // Only others' transactions are read; the newest transaction, read first, tells how far
        // the engine's own reach when there are no others.
        let newest = try Self.newestTransaction(of: local)
        let others = PersistentHistoryTransaction.fetchRequest(
            .comparison(StoreComparison(.keyPath("author"), .notEqualTo, .constant(.string(options.transactionAuthor)))))
        let transactions = try history(of: local, storeID: localStoreID, after: pushed, side: "local", only: others)
        if let pushed, transactions.isEmpty, let newest, newest > pushed {
            pending.engineTransactionsOnlyThrough = newest
        }
        for transaction in transactions {
            for change in transaction.changes ?? [] {
                guard let entityPlan = plan.plan(for: change.changedObjectID.entityName) else { continue }
                switch change.changeType {
                case .update: pending.properties[change.changedObjectID, default: []].formUnion(change.updatedProperties ?? [])
                case .insert, .delete: pending.properties[change.changedObjectID, default: []].formUnion(entityPlan.attributes + entityPlan.toOnes + entityPlan.memberLists)
                }
            }
        }
        return pending
    }

    struct PendingLocalChanges {
        var properties: [ManagedObjectID: Set<String>] = [:]
        /// The newest local transaction when every one after the pushed token is the engine's own.
        var engineTransactionsOnlyThrough: Int64?
    }
}
