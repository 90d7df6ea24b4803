import Foundation
import StoreCore

/// The global identities of one store's objects, read from and written to its
/// `StowageSyncIdentity` rows through one context (used on that context's queue only).
///
/// A row names one object, or a run of objects with consecutive keys and consecutive member
/// identities (``SyncIdentityRun``). Rows for many objects at once go without managed objects:
/// ``assign(_:toStored:)`` and ``insertNew(_:globalID:values:)`` stage them, and ``flush()``
/// hands them to the context's next save (``StoreRowInsertion``), so they are written in the same
/// store transaction as the context's changes — the engine's tokens and markers among them.
final class SyncIdentityMap {
    struct ObjectKey: Hashable {
        let entityName: String
        let key: Int64
    }

    let context: ManagedObjectContext
    let storeIdentifier: String
    private var rowsByGlobalID: [String: ManagedObject] = [:]
    private var rowsByObject: [ObjectKey: ManagedObject] = [:]
    private var missingGlobalIDs: Set<String> = []
    /// New objects whose identity row waits for their permanent ID.
    private var pending: [(object: ManagedObject, globalID: String)] = []
    private var pendingByGlobalID: [String: ManagedObject] = [:]
    private var pendingByObjectID: [ManagedObjectID: String] = [:]
    /// Identity rows written (or to be written) without a managed object, by their object's key.
    private var rawByGlobalID: [String: ObjectKey] = [:]
    private var rawByObject: [ObjectKey: String] = [:]
    /// Staged for the next save: identity rows of stored objects, and new objects with their identity rows.
    private var stagedRows: [(globalID: String, object: ObjectKey)] = []
    private var stagedObjects: [SyncNewObject] = []
    /// The new objects of saves in flight, learned once the save succeeded (``didSave()``).
    private var inFlight: [SyncNewObjectBatch] = []
    private var saved: [SyncNewObjectBatch] = []
    private var entities: [String: EntityDescription] = [:]
    /// Runs read or written, by entity (ascending first keys) and by base; identities staged
    /// with ``assign(_:toStored:)`` not yet indexed (from `indexedStagedRows` on).
    private var runsByEntity: [String: [SyncIdentityRun]] = [:]
    private var runsByBase: [String: [SyncIdentityRun]] = [:]
    private var knownRuns: Set<SyncIdentityRun> = []
    private var indexedStagedRows = 0

    init(context: ManagedObjectContext, storeIdentifier: String) {
        self.context = context
        self.storeIdentifier = storeIdentifier
    }

    private static let chunk = 500

    /// Loads the rows of these global identities (for a run member, every run of its base).
    func load(globalIDs: some Sequence<String>) throws {
        learnSaved()
        var wanted: Set<String> = []
        var lastBase = ""
        for globalID in globalIDs {
            if let (base, _) = SyncGlobalID.parse(globalID) {
                guard base != lastBase else { continue }
                lastBase = base
                if runsByBase[base] == nil, !missingGlobalIDs.contains(base) { wanted.insert(base) }
            } else if rowsByGlobalID[globalID] == nil, rawByGlobalID[globalID] == nil, pendingByGlobalID[globalID] == nil, !missingGlobalIDs.contains(globalID) {
                wanted.insert(globalID)
            }
        }
        guard !wanted.isEmpty else { return }
        if try SyncSession.readsWholeEntity(SyncEngine.identityEntityName, wanted: wanted.count, in: context) {
            try remember(fetch(nil))
        } else {
            let list = Array(wanted)
            for start in stride(from: 0, to: list.count, by: Self.chunk) {
                let part = Array(list[start..<min(start + Self.chunk, list.count)])
                try remember(fetch(.sync("globalID", in: part.map(StoreValue.string))))
            }
        }
        for globalID in wanted where rowsByGlobalID[globalID] == nil && runsByBase[globalID] == nil {
            missingGlobalIDs.insert(globalID)
        }
    }

    /// Loads the rows of these objects.
    func load(objectIDs: some Sequence<ManagedObjectID>) throws {
        learnSaved()
        var keysByEntity: [String: Set<Int64>] = [:]
        for id in objectIDs {
            guard let key = id.primaryKey, !id.isTemporaryID else { continue }
            let object = ObjectKey(entityName: id.entityName, key: key)
            guard rowsByObject[object] == nil, rawByObject[object] == nil, run(holding: object) == nil else { continue }
            keysByEntity[id.entityName, default: []].insert(key)
        }
        let wanted = keysByEntity.values.reduce(0) { $0 + $1.count }
        guard wanted > 0 else { return }
        if try SyncSession.readsWholeEntity(SyncEngine.identityEntityName, wanted: wanted, in: context) {
            try remember(fetch(nil))
            return
        }
        for (entityName, keys) in keysByEntity {
            // The runs that may hold some of these keys, then the rows of single objects.
            guard let lowest = keys.min(), let highest = keys.max() else { continue }
            try remember(fetch(StorePredicate.and([
                .comparison(StoreComparison(.keyPath("entityName"), .equalTo, .constant(.string(entityName)))),
                .comparison(StoreComparison(.keyPath("lastKey"), .greaterThanOrEqualTo, .constant(.integer(lowest)))),
                .comparison(StoreComparison(.keyPath("objectKey"), .lessThanOrEqualTo, .constant(.integer(highest)))),
            ])))
            let list = Array(keys.filter { run(holding: ObjectKey(entityName: entityName, key: $0)) == nil })
            for start in stride(from: 0, to: list.count, by: Self.chunk) {
                let part = list[start..<min(start + Self.chunk, list.count)].map(StoreValue.integer)
                let sameEntity = StorePredicate.comparison(StoreComparison(.keyPath("entityName"), .equalTo, .constant(.string(entityName))))
                try remember(fetch(.and([sameEntity, .sync("objectKey", in: part)])))
            }
        }
    }

    /// Loads every identity row; returns every identity they name (a run's members one by one),
    /// deleted members of runs among them.
    func loadEverything() throws -> [(globalID: String, object: ObjectKey)] {
        learnSaved()
        let rows = try fetch(nil)
        try remember(rows)
        var identities: [String: ObjectKey] = rawByGlobalID
        for (globalID, row) in rowsByGlobalID {
            guard case .string(let entityName) = try row.storeValue(forKey: "entityName"),
                  case .integer(let key) = try row.storeValue(forKey: "objectKey")
            else { continue }
            identities[globalID] = ObjectKey(entityName: entityName, key: key)
        }
        for run in knownRuns {
            for member in run.members { identities[member.globalID] = ObjectKey(entityName: run.entityName, key: member.key) }
        }
        return identities.map { ($0.key, $0.value) }
    }

    /// The identity rows `predicate` selects (all for `nil`).
    private func fetch(_ predicate: StorePredicate?) throws -> [ManagedObject] {
        try context.fetch(FetchRequest<ManagedObject>(entityName: SyncEngine.identityEntityName, predicate: predicate))
    }

    private func remember(_ rows: [ManagedObject]) throws {
        rowsByGlobalID.reserveCapacity(rowsByGlobalID.count + rows.count)
        rowsByObject.reserveCapacity(rowsByObject.count + rows.count)
        for row in rows {
            guard case .string(let globalID) = try row.storeValue(forKey: "globalID"),
                  case .string(let entityName) = try row.storeValue(forKey: "entityName"),
                  case .integer(let key) = try row.storeValue(forKey: "objectKey")
            else { throw SyncError(.storeFailed, entity: SyncEngine.identityEntityName, "an identity row lacks its globalID, entityName or objectKey") }
            if let run = try Self.run(of: row, base: globalID, entityName: entityName, firstKey: key) {
                index(run)
                continue
            }
            rowsByGlobalID[globalID] = row
            rowsByObject[ObjectKey(entityName: entityName, key: key)] = row
            missingGlobalIDs.remove(globalID)
        }
    }

    /// The object with this global identity (loaded first), or nil (also for an object staged
    /// with ``insertNew(_:globalID:values:)``, whose ID its save gives it).
    func objectID(for globalID: String) throws -> ManagedObjectID? {
        learnSaved()
        if let (base, number) = SyncGlobalID.parse(globalID) {
            guard let object = runMember(base, number) else { return nil }
            return ManagedObjectID(entityName: object.entityName, storeIdentifier: storeIdentifier, primaryKey: object.key)
        }
        if let object = pendingByGlobalID[globalID] { return object.objectID }
        if let raw = rawByGlobalID[globalID] {
            return ManagedObjectID(entityName: raw.entityName, storeIdentifier: storeIdentifier, primaryKey: raw.key)
        }
        if let row = rowsByGlobalID[globalID] {
            guard case .string(let entityName) = try row.storeValue(forKey: "entityName"),
                  case .integer(let key) = try row.storeValue(forKey: "objectKey")
            else { return nil }
            return ManagedObjectID(entityName: entityName, storeIdentifier: storeIdentifier, primaryKey: key)
        }
        return nil
    }

    /// The global identity of this object (loaded first), or nil.
    func globalID(for objectID: ManagedObjectID) throws -> String? {
        learnSaved()
        if objectID.isTemporaryID {
            return pendingByObjectID[objectID]
        }
        guard let key = objectID.primaryKey else { return nil }
        let objectKey = ObjectKey(entityName: objectID.entityName, key: key)
        if let raw = rawByObject[objectKey] { return raw }
        if let row = rowsByObject[objectKey] {
            guard case .string(let globalID) = try row.storeValue(forKey: "globalID") else { return nil }
            return globalID
        }
        return run(holding: objectKey)?.globalID(forKey: key)
    }

    /// The identity row of this global identity, for its member shadow.
    func row(for globalID: String) -> ManagedObject? { rowsByGlobalID[globalID] }

    /// Gives `object` this global identity; an object not yet saved gets its row in ``flush()``.
    func assign(_ globalID: String, to object: ManagedObject) throws {
        if object.objectID.isTemporaryID {
            pending.append((object, globalID))
            pendingByGlobalID[globalID] = object
            pendingByObjectID[object.objectID] = globalID
        } else {
            try insertRow(globalID, for: object.objectID)
        }
    }

    @discardableResult
    private func insertRow(_ globalID: String, for objectID: ManagedObjectID) throws -> ManagedObject {
        guard let key = objectID.primaryKey else {
            throw SyncError(.storeFailed, entity: objectID.entityName, "an object has no permanent ID for its identity row")
        }
        let row = try context.insertNewObject(forEntityName: SyncEngine.identityEntityName)
        try row.setStoreValue(.string(globalID), forKey: "globalID")
        try row.setStoreValue(.string(objectID.entityName), forKey: "entityName")
        try row.setStoreValue(.integer(key), forKey: "objectKey")
        rowsByGlobalID[globalID] = row
        rowsByObject[ObjectKey(entityName: objectID.entityName, key: key)] = row
        missingGlobalIDs.remove(globalID)
        return row
    }

    /// The row of a new object that has none yet, made at once (after its permanent ID).
    func row(forNew globalID: String) throws -> ManagedObject? {
        try flush()
        return rowsByGlobalID[globalID]
    }

    /// Gives the stored object `id` this global identity; its row is written with the context's
    /// next save, without a managed object.
    func assign(_ globalID: String, toStored id: ManagedObjectID) throws {
        guard let key = id.primaryKey, !id.isTemporaryID else {
            throw SyncError(.storeFailed, entity: id.entityName, "an object has no permanent ID for its identity row")
        }
        stagedRows.append((globalID, ObjectKey(entityName: id.entityName, key: key)))
        missingGlobalIDs.remove(globalID)
    }

    /// Stages a new object of entity `entityName` (one ``StoreRowInsertion`` accepts) with these attribute
    /// values and its identity row, both written with the context's next save.
    func insertNew(_ entityName: String, globalID: String, values: [String: StoreValue]) throws {
        let entity: EntityDescription
        if let known = entities[entityName] {
            entity = known
        } else {
            guard let model = context.persistentStoreCoordinator?.managedObjectModel else {
                throw SyncError(.storeNotReady, "the engine's context has no coordinator")
            }
            entity = try model.entity(named: entityName)
            entities[entityName] = entity
        }
        stagedObjects.append(SyncNewObject(entity: entity, globalID: globalID, values: values))
        missingGlobalIDs.remove(globalID)
    }

    /// Deletes the identity row of `globalID`, if it has one of its own (a run's row stays: it
    /// names the deleted member still, whose key its store never hands out again).
    func removeRow(for globalID: String) throws {
        learnSaved()
        if let raw = rawByGlobalID.removeValue(forKey: globalID) {
            rawByObject[raw] = nil
            missingGlobalIDs.insert(globalID)
            if let staged = stagedRows.firstIndex(where: { $0.globalID == globalID }) {
                stagedRows.remove(at: staged)
                indexedStagedRows -= 1
                return
            }
            // Written by an earlier save of this map: delete it through the context.
            try remember(fetch(StorePredicate(format: "globalID == %@", globalID)))
        }
        guard let row = rowsByGlobalID.removeValue(forKey: globalID) else { return }
        if case .string(let entityName) = try row.storeValue(forKey: "entityName"), case .integer(let key) = try row.storeValue(forKey: "objectKey") {
            rowsByObject[ObjectKey(entityName: entityName, key: key)] = nil
        }
        missingGlobalIDs.insert(globalID)
        context.delete(row)
    }

    /// Gives the new objects their permanent IDs and writes their identity rows; hands the staged
    /// rows to the context's next save.
    func flush() throws {
        try stageRowsWithNextSave()
        guard !pending.isEmpty else { return }
        let waiting = pending
        pending = []
        pendingByGlobalID = [:]
        pendingByObjectID = [:]
        try context.obtainPermanentIDs(for: waiting.map(\.object))
        for (object, globalID) in waiting { try insertRow(globalID, for: object.objectID) }
    }
}

extension SyncIdentityMap {
    /// Hands the staged rows to the context's next save, as one ``StoreRowInsertion``: new
    /// objects first, then their identity rows (runs where the keys the save gives them allow),
    /// then the identity rows of stored objects.
    private func stageRowsWithNextSave() throws {
        guard !stagedRows.isEmpty || !stagedObjects.isEmpty else { return }
        guard let model = context.persistentStoreCoordinator?.managedObjectModel else {
            throw SyncError(.storeNotReady, "the engine's context has no coordinator")
        }
        let identity = try SyncIdentityRowLayout(model.entity(named: SyncEngine.identityEntityName))
        indexStagedRows()
        let objects = stagedObjects
        let rows = SyncIdentityRun.group(stagedRows)
        stagedObjects = []
        stagedRows = []
        indexedStagedRows = 0
        let batch = SyncNewObjectBatch(objects: objects)
        inFlight.append(batch)
        // The new objects' identities need a row each at most; those their runs leave unused are never written.
        let rowCount = objects.count + rows.runs.count + rows.singles.count
        let names = objects.map(\.entity.name) + Array(repeating: SyncEngine.identityEntityName, count: rowCount)
        context.insertRowsWithNextSave(StoreRowInsertion(entityNames: names) { ids in
            var snapshots: [StoreSnapshot] = []
            snapshots.reserveCapacity(ids.count)
            var keys: [ObjectKey] = []
            keys.reserveCapacity(objects.count)
            for (object, id) in zip(objects, ids) {
                guard let key = id.primaryKey else { throw SyncError(.storeFailed, entity: object.entity.name, "the store gave a new object no key") }
                var values = object.entity.layout.nullValues
                for (name, value) in object.values {
                    guard let index = object.entity.propertyIndexes[name] else { continue }
                    values[index] = value
                }
                snapshots.append(StoreSnapshot(objectID: id, version: 1, entity: object.entity, values: values))
                keys.append(ObjectKey(entityName: object.entity.name, key: key))
            }
            let made = SyncIdentityRun.group(zip(objects, keys).map { ($0.globalID, $1) })
            var rowIDs = ids[objects.count...].makeIterator()
            func nextID() throws -> ManagedObjectID {
                guard let id = rowIDs.next() else { throw SyncError(.storeFailed, entity: SyncEngine.identityEntityName, "the save gave fewer identity rows than needed") }
                return id
            }
            for run in made.runs + rows.runs { snapshots.append(identity.snapshot(try nextID(), run: run)) }
            for single in made.singles + rows.singles { snapshots.append(identity.snapshot(try nextID(), globalID: single.globalID, object: single.object)) }
            batch.keys = keys
            batch.runs = made.runs
            batch.singles = made.singles
            return snapshots
        })
    }

    /// After the context's save succeeded: the new objects it wrote are known by their keys
    /// (looked up when first asked: a pull's map is not asked again).
    func didSave() {
        saved += inFlight
        inFlight = []
    }

    /// Makes the saved new objects, and the identities staged for stored objects, known by
    /// global identity and by key.
    func learnSaved() {
        indexStagedRows()
        guard !saved.isEmpty else { return }
        for batch in saved {
            for run in batch.runs { index(run) }
            rawByGlobalID.reserveCapacity(rawByGlobalID.count + batch.singles.count)
            rawByObject.reserveCapacity(rawByObject.count + batch.singles.count)
            for single in batch.singles {
                rawByGlobalID[single.globalID] = single.object
                rawByObject[single.object] = single.globalID
            }
        }
        saved = []
    }

    /// Indexes the identities ``assign(_:toStored:)`` staged since the last call.
    private func indexStagedRows() {
        guard indexedStagedRows < stagedRows.count else { return }
        let grouped = SyncIdentityRun.group(Array(stagedRows[indexedStagedRows...]))
        indexedStagedRows = stagedRows.count
        for run in grouped.runs { index(run) }
        for single in grouped.singles {
            rawByGlobalID[single.globalID] = single.object
            rawByObject[single.object] = single.globalID
        }
    }

    /// Remembers a run, by entity (in key order) and by base.
    func index(_ run: SyncIdentityRun) {
        guard knownRuns.insert(run).inserted else { return }
        var list = runsByEntity[run.entityName, default: []]
        if let last = list.last, last.firstKey > run.firstKey {
            list.insert(run, at: list.firstIndex { $0.firstKey > run.firstKey } ?? list.endIndex)
        } else {
            list.append(run)
        }
        runsByEntity[run.entityName] = list
        runsByBase[run.base, default: []].append(run)
        missingGlobalIDs.remove(run.base)
    }

    /// The run that holds this object, among those known.
    func run(holding object: ObjectKey) -> SyncIdentityRun? {
        guard let runs = runsByEntity[object.entityName] else { return nil }
        // The last run starting at or before the key.
        var low = 0, high = runs.count
        while low < high {
            let middle = (low + high) / 2
            if runs[middle].firstKey <= object.key { low = middle + 1 } else { high = middle }
        }
        guard low > 0, runs[low - 1].lastKey >= object.key else { return nil }
        return runs[low - 1]
    }

    /// The object of a run member's identity, among the runs known.
    func runMember(_ base: String, _ number: Int64) -> ObjectKey? {
        guard let runs = runsByBase[base] else { return nil }
        for run in runs {
            if let key = run.key(forNumber: number) { return ObjectKey(entityName: run.entityName, key: key) }
        }
        return nil
    }

    /// The run an identity row stands for (nil for a row of one object).
    static func run(of row: ManagedObject, base: String, entityName: String, firstKey: Int64) throws -> SyncIdentityRun? {
        guard case .integer(let lastKey) = try row.storeValue(forKey: "lastKey") else { return nil }
        guard case .integer(let firstNumber) = try row.storeValue(forKey: "firstNumber"), lastKey >= firstKey else {
            throw SyncError(.storeFailed, entity: SyncEngine.identityEntityName, "the identity row of run \(base) lacks its firstNumber or ends before it starts")
        }
        return SyncIdentityRun(base: base, entityName: entityName, firstKey: firstKey, lastKey: lastKey, firstNumber: firstNumber)
    }
}

/// Where an identity row's values go, resolved once per save.
struct SyncIdentityRowLayout {
    let entity: EntityDescription
    let globalID: Int
    let entityName: Int
    let objectKey: Int
    let lastKey: Int
    let firstNumber: Int

    init(_ entity: EntityDescription) throws {
        let indexes = entity.propertyIndexes
        guard let globalID = indexes["globalID"], let entityName = indexes["entityName"], let objectKey = indexes["objectKey"],
              let lastKey = indexes["lastKey"], let firstNumber = indexes["firstNumber"]
        else {
            throw SyncError(.modelNotPrepared, entity: SyncEngine.identityEntityName,
                            "the identity entity lacks globalID, entityName, objectKey, lastKey or firstNumber: add SyncEngine.modelEntities() to the model")
        }
        (self.entity, self.globalID, self.entityName, self.objectKey, self.lastKey, self.firstNumber) = (entity, globalID, entityName, objectKey, lastKey, firstNumber)
    }

    func snapshot(_ id: ManagedObjectID, globalID value: String, object: SyncIdentityMap.ObjectKey) -> StoreSnapshot {
        StoreSnapshot(objectID: id, version: 1, entity: entity, values: values(value, object))
    }

    func snapshot(_ id: ManagedObjectID, run: SyncIdentityRun) -> StoreSnapshot {
        var values = values(run.base, SyncIdentityMap.ObjectKey(entityName: run.entityName, key: run.firstKey))
        values[lastKey] = .integer(run.lastKey)
        values[firstNumber] = .integer(run.firstNumber)
        return StoreSnapshot(objectID: id, version: 1, entity: entity, values: values)
    }

    private func values(_ value: String, _ object: SyncIdentityMap.ObjectKey) -> StoreValues {
        var values = entity.layout.nullValues
        values[globalID] = .string(value)
        values[entityName] = .string(object.entityName)
        values[objectKey] = .integer(object.key)
        return values
    }
}

/// A new object staged in a ``SyncIdentityMap``: written, with its identity row, by the next save.
struct SyncNewObject {
    let entity: EntityDescription
    let globalID: String
    let values: [String: StoreValue]
}

/// New objects handed to a save; the save's row builder notes the keys they received.
final class SyncNewObjectBatch {
    let objects: [SyncNewObject]
    var keys: [SyncIdentityMap.ObjectKey] = []
    /// Their identities, as written: runs and single rows.
    var runs: [SyncIdentityRun] = []
    var singles: [(globalID: String, object: SyncIdentityMap.ObjectKey)] = []

    init(objects: [SyncNewObject]) { self.objects = objects }
}
