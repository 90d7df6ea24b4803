import Foundation
import StoreCore

/// The global identities of one store's objects, read from and written to its
/// `StowageSyncIdentity` rows through one context (used on that context's queue only).
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

    init(context: ManagedObjectContext, storeIdentifier: String) {
        self.context = context
        self.storeIdentifier = storeIdentifier
    }

    private static let chunk = 500

    /// Loads the rows of these global identities.
    func load(globalIDs: some Sequence<String>) throws {
        let wanted = Set(globalIDs).subtracting(rowsByGlobalID.keys).subtracting(missingGlobalIDs).subtracting(pendingByGlobalID.keys)
        guard !wanted.isEmpty else { return }
        let list = Array(wanted)
        for start in stride(from: 0, to: list.count, by: Self.chunk) {
            let part = Array(list[start..<min(start + Self.chunk, list.count)])
            try remember(fetch(StorePredicate(format: "globalID IN %@", part)))
        }
        missingGlobalIDs.formUnion(wanted.subtracting(rowsByGlobalID.keys))
    }

    /// Loads the rows of these objects.
    func load(objectIDs: some Sequence<ManagedObjectID>) throws {
        var keysByEntity: [String: Set<Int64>] = [:]
        for id in objectIDs {
            guard let key = id.primaryKey, rowsByObject[ObjectKey(entityName: id.entityName, key: key)] == nil else { continue }
            keysByEntity[id.entityName, default: []].insert(key)
        }
        for (entityName, keys) in keysByEntity {
            let list = Array(keys)
            for start in stride(from: 0, to: list.count, by: Self.chunk) {
                let part = list[start..<min(start + Self.chunk, list.count)].map { NSNumber(value: $0) }
                try remember(fetch(StorePredicate(format: "entityName == %@ AND objectKey IN %@", entityName, part)))
            }
        }
    }

    private func fetch(_ predicate: StorePredicate) throws -> [ManagedObject] {
        try context.fetch(FetchRequest<ManagedObject>(entityName: SyncEngine.identityEntityName, predicate: predicate))
    }

    private func remember(_ rows: [ManagedObject]) throws {
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

    /// The object with this global identity (loaded first), or nil.
    func objectID(for globalID: String) throws -> ManagedObjectID? {
        if let object = pendingByGlobalID[globalID] { return object.objectID }
        guard let row = rowsByGlobalID[globalID],
              case .string(let entityName) = try row.storeValue(forKey: "entityName"),
              case .integer(let key) = try row.storeValue(forKey: "objectKey")
        else { return nil }
        return ManagedObjectID(entityName: entityName, storeIdentifier: storeIdentifier, primaryKey: key)
    }

    /// The global identity of this object (loaded first), or nil.
    func globalID(for objectID: ManagedObjectID) throws -> String? {
        if objectID.isTemporaryID {
            return pendingByObjectID[objectID]
        }
        guard let key = objectID.primaryKey, let row = rowsByObject[ObjectKey(entityName: objectID.entityName, key: key)],
              case .string(let globalID) = try row.storeValue(forKey: "globalID")
        else { return nil }
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

    /// Deletes the identity row of `globalID`, if any.
    func removeRow(for globalID: String) throws {
        guard let row = rowsByGlobalID.removeValue(forKey: globalID) else { return }
        if case .string(let entityName) = try row.storeValue(forKey: "entityName"), case .integer(let key) = try row.storeValue(forKey: "objectKey") {
            rowsByObject[ObjectKey(entityName: entityName, key: key)] = nil
        }
        missingGlobalIDs.insert(globalID)
        context.delete(row)
    }

    /// Gives the new objects their permanent IDs and writes their identity rows.
    func flush() throws {
        guard !pending.isEmpty else { return }
        let waiting = pending
        pending = []
        pendingByGlobalID = [:]
        pendingByObjectID = [:]
        try context.obtainPermanentIDs(for: waiting.map(\.object))
        for (object, globalID) in waiting { try insertRow(globalID, for: object.objectID) }
    }
}
