import Foundation
import StoreCore

/// A `StowageSyncState` row: in a local store the one row keyed `local`, in the server store one
/// row per client keyed `client:<id>`, holding the last local transaction applied from it.
struct SyncStateRow {
    static let localKey = "local"
    static func serverKey(clientID: String) -> String { "client:\(clientID)" }

    let object: ManagedObject

    /// The row keyed `key`, made when missing.
    static func fetch(_ key: String, in context: ManagedObjectContext) throws -> SyncStateRow {
        let request = FetchRequest<ManagedObject>(entityName: SyncEngine.stateEntityName, predicate: try StorePredicate(format: "key == %@", key))
        if let row = try context.fetch(request).first { return SyncStateRow(object: row) }
        let row = try context.insertNewObject(forEntityName: SyncEngine.stateEntityName)
        try row.setStoreValue(.string(key), forKey: "key")
        return SyncStateRow(object: row)
    }

    /// The row keyed `key`, or nil.
    static func existing(_ key: String, in context: ManagedObjectContext) throws -> SyncStateRow? {
        let request = FetchRequest<ManagedObject>(entityName: SyncEngine.stateEntityName, predicate: try StorePredicate(format: "key == %@", key))
        return try context.fetch(request).first.map(SyncStateRow.init)
    }

    func string(_ key: String) throws -> String? {
        if case .string(let value) = try object.storeValue(forKey: key) { return value }
        return nil
    }

    func number(_ key: String) throws -> Int64? {
        if case .integer(let value) = try object.storeValue(forKey: key) { return value }
        return nil
    }

    func set(_ key: String, _ value: String?) throws {
        try object.setStoreValue(value.map(StoreValue.string) ?? .null, forKey: key)
    }

    func set(_ key: String, _ value: Int64?) throws {
        try object.setStoreValue(value.map(StoreValue.integer) ?? .null, forKey: key)
    }

    var clientID: String? { get throws { try string("clientID") } }
    var serverStoreID: String? { get throws { try string("serverStoreID") } }
    /// The newest local transaction pushed (local row) or applied (server row).
    var pushedTransaction: Int64? { get throws { try number("pushedTransaction") } }
    /// The newest server transaction pulled.
    var pulledTransaction: Int64? { get throws { try number("pulledTransaction") } }
}
