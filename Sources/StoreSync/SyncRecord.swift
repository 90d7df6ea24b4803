import Foundation
import StoreCore

/// One object's change on its way between stores, with every relationship as global identities.
struct SyncRecord: Sendable {
    enum Kind: Sendable { case upsert, delete }

    let globalID: String
    let entityName: String
    var kind: Kind
    /// Whether the object is new on the sending side (the receiver creates it when missing).
    var isInsert = false
    var attributes: [String: StoreValue] = [:]
    /// To-one relationships: the destination's global identity, `nil` for none.
    var toOnes: [String: String?] = [:]
    /// Member lists as a whole (a pull).
    var members: [String: [String]] = [:]
    /// Member edits since the last sync (a push): merged into the server's members, never overwriting them.
    var addedMembers: [String: [String]] = [:]
    var removedMembers: [String: [String]] = [:]

    init(globalID: String, entityName: String, kind: Kind) {
        self.globalID = globalID
        self.entityName = entityName
        self.kind = kind
    }

    var referencedGlobalIDs: [String] {
        if toOnes.isEmpty && members.isEmpty && addedMembers.isEmpty && removedMembers.isEmpty { return [] }
        return toOnes.values.compactMap { $0 } + members.values.joined() + addedMembers.values.joined() + removedMembers.values.joined()
    }

    /// The global identities of `records` and of the objects they name, in order (repeats kept).
    static func globalIDs(of records: [SyncRecord]) -> [String] {
        var globalIDs: [String] = []
        globalIDs.reserveCapacity(records.count)
        for record in records {
            globalIDs.append(record.globalID)
            globalIDs += record.referencedGlobalIDs
        }
        return globalIDs
    }
}

/// A local transaction's records, pushed as one server transaction.
struct SyncPushTransaction: Sendable {
    let number: Int64
    var records: [SyncRecord]
}

/// The member lists an object had when it last synced (to tell this client's edits from others').
enum MemberShadow {
    /// The shadow kept in an identity row.
    static func of(_ row: ManagedObject) throws -> [String: [String]] {
        guard case .string(let text) = try row.storeValue(forKey: "memberShadow") else { return [:] }
        return try decode(text)
    }

    static func store(_ members: [String: [String]], in row: ManagedObject) throws {
        let text = try encode(members).map(StoreValue.string) ?? .null
        if try row.storeValue(forKey: "memberShadow") != text { try row.setStoreValue(text, forKey: "memberShadow") }
    }

    static func decode(_ text: String?) throws(SyncError) -> [String: [String]] {
        guard let text, !text.isEmpty else { return [:] }
        do {
            return try JSONDecoder().decode([String: [String]].self, from: Data(text.utf8))
        } catch {
            throw SyncError(.storeFailed, entity: SyncEngine.identityEntityName, "a memberShadow value is not valid JSON", underlying: error)
        }
    }

    static func encode(_ members: [String: [String]]) throws(SyncError) -> String? {
        guard !members.isEmpty else { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        do {
            return String(decoding: try encoder.encode(members.mapValues { $0.sorted() }), as: UTF8.self)
        } catch {
            throw SyncError(.storeFailed, entity: SyncEngine.identityEntityName, "member lists could not be encoded", underlying: error)
        }
    }
}
