import Foundation
import StoreCore

extension SyncSession {
    /// Pushes the local history after the last pushed token (skipping the engine's own
    /// transactions): each local transaction becomes one server transaction, which also records
    /// it as applied for this client, so a push cut off before the local token moved is not
    /// applied twice.
    func push(detectingConflicts: Bool) throws {
        // 1. Read what to push; give new objects their global identities (saved first, so a retry
        //    sends the same identities).
        try step(.assignIdentities)
        let outgoing = try local.performAndWait { try self.collectOutgoing() }
        guard let outgoing else { return }

        // 2. Apply each transaction on the server.
        let conflictCandidates = detectingConflicts && options.conflictResolver != nil
            ? try server.performAndWait { try self.serverChangesSinceLastPull() } : [:]
        try server.performAndWait {
            let marker = try SyncStateRow.fetch(SyncStateRow.serverKey(clientID: self.clientID), in: self.server)
            let applied = try marker.pushedTransaction ?? 0
            let map = SyncIdentityMap(context: self.server, storeIdentifier: self.serverStoreID)
            for transaction in outgoing.transactions where transaction.number > applied {
                try self.step(.pushTransaction)
                try self.apply(transaction, map: map, conflictCandidates: conflictCandidates)
                try marker.set("pushedTransaction", transaction.number)
                try map.flush()
                try Self.save(self.server, side: "server")
                map.didSave()
                self.summary.pushedTransactions += 1
            }
        }

        // 3. Move the pushed token, drop the identities of deleted objects, remember the member
        //    lists just pushed — one local save.
        try step(.recordPushed)
        try local.performAndWait {
            let map = SyncIdentityMap(context: self.local, storeIdentifier: self.localStoreID)
            try map.load(globalIDs: outgoing.deleted)
            try map.load(globalIDs: outgoing.shadows.keys)
            for globalID in outgoing.deleted { try map.removeRow(for: globalID) }
            for (globalID, lists) in outgoing.shadows {
                guard let row = map.row(for: globalID) else { continue }
                try MemberShadow.store(try MemberShadow.of(row).merging(lists) { $1 }, in: row)
            }
            let state = try SyncStateRow.fetch(SyncStateRow.localKey, in: self.local)
            try state.set("pushedTransaction", outgoing.lastNumber)
            try Self.save(self.local, side: "local")
        }
    }

    struct Outgoing {
        var transactions: [SyncPushTransaction] = []
        var lastNumber: Int64
        var deleted: [String] = []
        /// The member lists each pushed object has now: its shadow once pushed.
        var shadows: [String: [String: [String]]] = [:]
    }

    /// On the local context: the records of every pending transaction (nil when nothing is new).
    private func collectOutgoing() throws -> Outgoing? {
        let state = try SyncStateRow.fetch(SyncStateRow.localKey, in: local)
        let pushed = try state.pushedTransaction
        let pending: [PersistentHistoryTransaction]
        let lastNumber: Int64
        if let pushed {
            // Only others' transactions are read (the engine's own hold what it wrote); the newest
            // transaction, read first, covers the engine's own that the narrowed read leaves out.
            let newest = try Self.newestTransaction(of: local)
            let others = PersistentHistoryTransaction.fetchRequest(
                .comparison(StoreComparison(.keyPath("author"), .notEqualTo, .constant(.string(options.transactionAuthor)))))
            pending = try history(of: local, storeID: localStoreID, after: pushed, side: "local", only: others)
            guard let last = [newest, pending.last?.transactionNumber].compactMap({ $0 }).max(), last > pushed else { return nil }
            lastNumber = last
        } else {
            // The first push sends every object, whatever history holds (it may have been turned on late).
            lastNumber = try local.persistentStoreCoordinator?.currentPersistentHistoryToken()?.transactionNumber ?? 0
            pending = [try everyLocalObjectAsOneTransaction(number: lastNumber)]
        }
        // Only the engine's own transactions since the last push: nothing to send. The token moves
        // past them with the next pull's save (a save of its own would be one more such transaction).
        if pending.isEmpty { return nil }
        var outgoing = Outgoing(lastNumber: lastNumber)
        let map = SyncIdentityMap(context: local, storeIdentifier: localStoreID)
        var changedIDs: [ManagedObjectID] = []
        for transaction in pending {
            for change in transaction.changes ?? [] where plan.plan(for: change.changedObjectID.entityName) != nil {
                changedIDs.append(change.changedObjectID)
            }
        }
        try map.load(objectIDs: changedIDs)
        // Identities first, for every object still here, so records can name one another.
        var (rows, objects) = try read(changedIDs, in: local)
        var destinations: [ManagedObjectID] = []
        for (id, object) in objects {
            guard let entityPlan = plan.plan(for: id.entityName) else { continue }
            destinations += try Self.destinations(of: object, plan: entityPlan)
        }
        try map.load(objectIDs: destinations)
        var fresh: Set<ManagedObjectID> = []
        var newGlobalIDs = SyncGlobalIDGenerator()
        // In history order (new objects: key order), so the identities ascend with the keys. All
        // are looked up before any is assigned (an assignment makes the next lookup index it).
        var needing: [(ManagedObjectID, SyncEntityPlan)] = []
        for id in changedIDs where (objects[id] != nil || rows[id] != nil) && !fresh.contains(id) {
            guard try map.globalID(for: id) == nil, let entityPlan = plan.plan(for: id.entityName) else { continue }
            needing.append((id, entityPlan))
            fresh.insert(id)
        }
        for (id, entityPlan) in needing { try map.assign(newGlobalIDs.next(for: entityPlan), toStored: id) }
        for id in Set(destinations) where objects[id] == nil {
            guard try map.globalID(for: id) == nil else { continue }
            // A destination never pushed (made before sync was set up): it gets an identity and is pushed as new.
            guard let object = try Self.existing(id, in: local), plan.plan(for: id.entityName) != nil else { continue }
            objects[id] = object
            try map.assign(newGlobalIDs.next(), toStored: id)
            fresh.insert(id)
        }
        try map.flush()
        try Self.save(local, side: "local")

        var extraInserts = fresh.subtracting(changedIDs)
        for transaction in pending {
            var records: [SyncRecord] = []
            for change in transaction.changes ?? [] {
                let id = change.changedObjectID
                guard let entityPlan = plan.plan(for: id.entityName) else { continue }
                if change.changeType == .delete {
                    guard let globalID = try map.globalID(for: id) else { continue }   // inserted and deleted before any push
                    records.append(SyncRecord(globalID: globalID, entityName: id.entityName, kind: .delete))
                    outgoing.deleted.append(globalID)
                    continue
                }
                if let row = rows[id], let globalID = try map.globalID(for: id) {
                    let whole = change.changeType == .insert || fresh.contains(id)
                    records.append(Self.record(row, globalID: globalID, plan: entityPlan, updated: whole ? nil : change.updatedProperties ?? []))
                    continue
                }
                guard let object = objects[id], let globalID = try map.globalID(for: id) else { continue }
                records.append(try record(for: object, globalID: globalID, plan: entityPlan,
                                          whole: change.changeType == .insert || fresh.contains(id),
                                          updated: change.updatedProperties ?? [], map: map, outgoing: &outgoing))
            }
            // Destinations pushed for the first time go with the first transaction that names them.
            for id in extraInserts {
                guard let object = objects[id], let entityPlan = plan.plan(for: id.entityName), let globalID = try map.globalID(for: id) else { continue }
                records.insert(try record(for: object, globalID: globalID, plan: entityPlan, whole: true, updated: [], map: map, outgoing: &outgoing), at: 0)
            }
            extraInserts = []
            if !records.isEmpty { outgoing.transactions.append(SyncPushTransaction(number: transaction.transactionNumber, records: records)) }
        }
        return outgoing
    }

    private func record(
        for object: ManagedObject, globalID: String, plan entityPlan: SyncEntityPlan, whole: Bool, updated: Set<String>,
        map: SyncIdentityMap, outgoing: inout Outgoing
    ) throws -> SyncRecord {
        var record = SyncRecord(globalID: globalID, entityName: entityPlan.name, kind: .upsert)
        record.isInsert = whole
        let keys = whole ? (entityPlan.attributes, entityPlan.toOnes, entityPlan.memberLists) : entityPlan.synced(updated)
        let members = try Self.read(object, attributes: keys.0, toOnes: keys.1, memberLists: keys.2, into: &record, map: map)
        if !members.isEmpty {
            let shadow = try map.row(for: globalID).map(MemberShadow.of) ?? [:]
            for (key, now) in members {
                let before = Set(shadow[key] ?? [])
                let current = Set(now)
                record.addedMembers[key] = Array(current.subtracting(before))
                record.removedMembers[key] = Array(before.subtracting(current))
            }
            outgoing.shadows[globalID, default: [:]].merge(members) { $1 }
        }
        return record
    }

    /// Every object of the synced entities, as if one transaction had inserted them.
    private func everyLocalObjectAsOneTransaction(number: Int64) throws -> PersistentHistoryTransaction {
        var changes: [PersistentHistoryChange] = []
        let token = PersistentHistoryToken(storeIdentifier: localStoreID, transactionNumber: number)
        for entityName in plan.entities.keys.sorted() {
            var request = FetchRequest<ManagedObjectID>(entityName: entityName)
            request.includesSubentities = false
            for id in try local.fetch(request) {
                changes.append(PersistentHistoryChange(changeID: Int64(changes.count), changedObjectID: id, changeType: .insert, updatedProperties: nil, tombstone: nil, transactionToken: token))
            }
        }
        return PersistentHistoryTransaction(token: token, timestamp: Date(), author: nil, contextName: nil, processID: 0, changes: changes)
    }
}

/// Makes global identities: time-ordered UUIDs (version 7, RFC 9562) whose 12-bit counter keeps
/// the identities of one batch in ascending order, with 62 random bits from the system's random
/// source. Ascending identities go to the end of the stores' `globalID` indexes instead of all
/// over them; Foundation's `UUID()` would also open and read the random device for each one on Linux.
struct SyncGlobalIDGenerator {
    private var random = SystemRandomNumberGenerator()
    private var milliseconds = UInt64(max(0, Date().timeIntervalSince1970 * 1000))
    private var counter: UInt64 = 0
    /// Per entity written as rows: the base of this generator's run and the next member number.
    private var runs: [String: (base: String, next: Int64)] = [:]

    /// The next identity for a new object of this entity: for an entity written as rows, the next
    /// member of one run per entity (``SyncIdentityRun``: one identity row for many objects),
    /// otherwise a UUID of its own.
    mutating func next(for entityPlan: SyncEntityPlan) -> String {
        guard entityPlan.insertsAsRows else { return next() }
        let run = runs[entityPlan.name] ?? (next(), 0)
        runs[entityPlan.name] = (run.base, run.next + 1)
        return SyncGlobalID.member(run.base, run.next)
    }

    mutating func next() -> String {
        if counter > 0xFFF {
            // The counter ran out: the next millisecond (identities stay ascending).
            milliseconds += 1
            counter = 0
        }
        let high = (milliseconds & 0xFFFF_FFFF_FFFF) << 16 | 0x7000 | counter
        counter += 1
        let low = (random.next() as UInt64) & 0x3FFF_FFFF_FFFF_FFFF | 0x8000_0000_0000_0000
        func byte(_ word: UInt64, _ index: Int) -> UInt8 { UInt8(truncatingIfNeeded: word >> (56 - 8 * index)) }
        let uuid: uuid_t = (
            byte(high, 0), byte(high, 1), byte(high, 2), byte(high, 3), byte(high, 4), byte(high, 5), byte(high, 6), byte(high, 7),
            byte(low, 0), byte(low, 1), byte(low, 2), byte(low, 3), byte(low, 4), byte(low, 5), byte(low, 6), byte(low, 7))
        return UUID(uuid: uuid).uuidString
    }
}
