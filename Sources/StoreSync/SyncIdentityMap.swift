import Foundation
import StoreCore

/// The global identities of one store's objects, read from and written to its
/// `StowageSyncIdentity` rows through one context (used on that context's queue only).
///
/// Rows for many objects at once go without managed objects: ``assign(_:toStored:)`` and
/// ``insertNew(_:globalID:values:)`` stage them, and ``flush()`` hands them to the context's next
/// save (``StoreRowInsertion``), so they are written in the same store transaction as the
/// context's changes — the engine's tokens and markers among them.
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

    init(context: ManagedObjectContext, storeIdentifier: String) {
        self.context = context
        self.storeIdentifier = storeIdentifier
    }

    private static let chunk = 500

    /// Loads the rows of these global identities.
    func load(globalIDs: some Sequence<String>) throws {
        learnSaved()
        let wanted = Set(globalIDs).subtracting(rowsByGlobalID.keys).subtracting(missingGlobalIDs).subtracting(pendingByGlobalID.keys)
        guard !wanted.isEmpty else { return }
        if try SyncSession.readsWholeEntity(SyncEngine.identityEntityName, wanted: wanted.count, in: context) {
            try remember(fetch(nil))
            missingGlobalIDs.formUnion(wanted.subtracting(rowsByGlobalID.keys))
            return
        }
        let list = Array(wanted)
        for start in stride(from: 0, to: list.count, by: Self.chunk) {
            let part = Array(list[start..<min(start + Self.chunk, list.count)])
            try remember(fetch(.sync("globalID", in: part.map(StoreValue.string))))
        }
        missingGlobalIDs.formUnion(wanted.subtracting(rowsByGlobalID.keys))
    }

    /// Loads the rows of these objects.
    func load(objectIDs: some Sequence<ManagedObjectID>) throws {
        learnSaved()
        var keysByEntity: [String: Set<Int64>] = [:]
        for id in objectIDs {
            guard let key = id.primaryKey, rowsByObject[ObjectKey(entityName: id.entityName, key: key)] == nil else { continue }
            keysByEntity[id.entityName, default: []].insert(key)
        }
        let wanted = keysByEntity.values.reduce(0) { $0 + $1.count }
        if try SyncSession.readsWholeEntity(SyncEngine.identityEntityName, wanted: wanted, in: context) {
            try remember(fetch(nil))
            return
        }
        for (entityName, keys) in keysByEntity {
            let list = Array(keys)
            for start in stride(from: 0, to: list.count, by: Self.chunk) {
                let part = list[start..<min(start + Self.chunk, list.count)].map(StoreValue.integer)
                let sameEntity = StorePredicate.comparison(StoreComparison(.keyPath("entityName"), .equalTo, .constant(.string(entityName))))
                try remember(fetch(.and([sameEntity, .sync("objectKey", in: part)])))
            }
        }
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
            rowsByGlobalID[globalID] = row
            rowsByObject[ObjectKey(entityName: entityName, key: key)] = row
            missingGlobalIDs.remove(globalID)
        }
    }

    /// The object with this global identity (loaded first), or nil (also for an object staged
    /// with ``insertNew(_:globalID:values:)``, whose ID its save gives it).
    func objectID(for globalID: String) throws -> ManagedObjectID? {
        learnSaved()
        if let object = pendingByGlobalID[globalID] { return object.objectID }
        if let raw = rawByGlobalID[globalID] {
            return ManagedObjectID(entityName: raw.entityName, storeIdentifier: storeIdentifier, primaryKey: raw.key)
        }
        guard let row = rowsByGlobalID[globalID],
              case .string(let entityName) = try row.storeValue(forKey: "entityName"),
              case .integer(let key) = try row.storeValue(forKey: "objectKey")
        else { return nil }
        return ManagedObjectID(entityName: entityName, storeIdentifier: storeIdentifier, primaryKey: key)
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
        guard let row = rowsByObject[objectKey], case .string(let globalID) = try row.storeValue(forKey: "globalID") else { return nil }
        return globalID
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
        let objectKey = ObjectKey(entityName: id.entityName, key: key)
        stagedRows.append((globalID, objectKey))
        rawByGlobalID[globalID] = objectKey
        rawByObject[objectKey] = globalID
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

    /// Deletes the identity row of `globalID`, if any.
    func removeRow(for globalID: String) throws {
        learnSaved()
        if let raw = rawByGlobalID.removeValue(forKey: globalID) {
            rawByObject[raw] = nil
            missingGlobalIDs.insert(globalID)
            if let staged = stagedRows.firstIndex(where: { $0.globalID == globalID }) {
                stagedRows.remove(at: staged)
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
    /// objects first, then one identity row for each (naming the key the save gives the object),
    /// then the identity rows of stored objects.
    private func stageRowsWithNextSave() throws {
        guard !stagedRows.isEmpty || !stagedObjects.isEmpty else { return }
        guard let model = context.persistentStoreCoordinator?.managedObjectModel else {
            throw SyncError(.storeNotReady, "the engine's context has no coordinator")
        }
        let identity = try model.entity(named: SyncEngine.identityEntityName)
        guard let globalIDIndex = identity.propertyIndexes["globalID"], let entityNameIndex = identity.propertyIndexes["entityName"],
              let objectKeyIndex = identity.propertyIndexes["objectKey"]
        else { throw SyncError(.modelNotPrepared, entity: SyncEngine.identityEntityName, "the identity entity lacks globalID, entityName or objectKey") }
        let objects = stagedObjects, rows = stagedRows
        stagedObjects = []
        stagedRows = []
        let batch = SyncNewObjectBatch(objects: objects)
        inFlight.append(batch)
        let names = objects.map(\.entity.name) + Array(repeating: SyncEngine.identityEntityName, count: objects.count + rows.count)
        context.insertRowsWithNextSave(StoreRowInsertion(entityNames: names) { ids in
            var snapshots: [StoreSnapshot] = []
            snapshots.reserveCapacity(ids.count)
            let emptyRow = identity.layout.nullValues
            func identityRow(_ id: ManagedObjectID, _ globalID: String, _ object: ObjectKey) -> StoreSnapshot {
                var values = emptyRow
                values[globalIDIndex] = .string(globalID)
                values[entityNameIndex] = .string(object.entityName)
                values[objectKeyIndex] = .integer(object.key)
                return StoreSnapshot(objectID: id, version: 1, entity: identity, values: values)
            }
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
            var next = objects.count
            for (object, key) in zip(objects, keys) {
                snapshots.append(identityRow(ids[next], object.globalID, key))
                next += 1
            }
            for row in rows {
                snapshots.append(identityRow(ids[next], row.globalID, row.object))
                next += 1
            }
            batch.keys = keys
            return snapshots
        })
    }

    /// After the context's save succeeded: the new objects it wrote are known by their keys
    /// (looked up when first asked: a pull's map is not asked again).
    func didSave() {
        saved += inFlight
        inFlight = []
    }

    /// Makes the saved new objects known by global identity and by key.
    func learnSaved() {
        guard !saved.isEmpty else { return }
        let count = saved.reduce(0) { $0 + $1.keys.count }
        rawByGlobalID.reserveCapacity(rawByGlobalID.count + count)
        rawByObject.reserveCapacity(rawByObject.count + count)
        for batch in saved {
            for (object, key) in zip(batch.objects, batch.keys) {
                rawByGlobalID[object.globalID] = key
                rawByObject[key] = object.globalID
            }
        }
        saved = []
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

    init(objects: [SyncNewObject]) { self.objects = objects }
}
