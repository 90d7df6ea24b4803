import Foundation

/// A store that records persistent history: it answers history requests and knows its latest
/// token. The SQLite store and the atomic stores (in-memory, XML, binary, your own format) adopt it.
///
/// For example:
///
/// ```swift
/// if let store = coordinator.persistentStores.first as? any PersistentHistoryStore {
///     print(try store.currentHistoryToken() as Any)
/// }
/// ```
public protocol PersistentHistoryStore: PersistentStore {
    /// Whether the store was loaded with history tracking on.
    var isHistoryTrackingEnabled: Bool { get }
    /// Fetches or deletes history.
    func execute(_ request: PersistentHistoryChangeRequest) throws -> PersistentHistoryResult
    /// The token of the latest transaction recorded, `nil` when there is none.
    func currentHistoryToken() throws -> PersistentHistoryToken?
}

/// The pieces of a transaction a store records, before it has a number.
package struct HistoryRecord: Sendable {
    package var timestamp = Date()
    package var author: String?
    package var contextName: String?
    package var processID = ProcessInfo.processInfo.processIdentifier
    package var changes: [(objectID: ManagedObjectID, type: PersistentHistoryChange.ChangeType, updated: Set<String>?, tombstone: [String: StoreValue]?)] = []

    package init(author: String?, contextName: String?) {
        self.author = author
        self.contextName = contextName
    }

    /// The record of a change set: inserts, updates with the keys they changed, and deletions with
    /// tombstones read from `current` (the objects as they were before the change).
    package init(_ changes: StoreChangeSet, model: ManagedObjectModel, current: (ManagedObjectID) -> StoreSnapshot?) {
        self.init(author: changes.transactionAuthor, contextName: changes.contextName)
        for snapshot in changes.inserted { self.changes.append((snapshot.objectID, .insert, nil, nil)) }
        for snapshot in changes.updated {
            self.changes.append((snapshot.objectID, .update, Set(snapshot.heldProperties.map { snapshot.entity.properties[$0].name }), nil))
        }
        for snapshot in changes.deleted {
            let tombstone = current(snapshot.objectID).map { Self.tombstone(of: $0, model: model) }
            self.changes.append((snapshot.objectID, .delete, nil, tombstone ?? [:]))
        }
    }

    /// The preserved values of a deleted object.
    package static func tombstone(of snapshot: StoreSnapshot, model: ManagedObjectModel) -> [String: StoreValue] {
        var values: [String: StoreValue] = [:]
        for attribute in preservedAttributes(of: snapshot.objectID.entityName, model: model) {
            values[attribute.name] = snapshot[attribute.name]
        }
        return values
    }

    /// The attributes an entity keeps in deletion tombstones.
    package static func preservedAttributes(of entityName: String, model: ManagedObjectModel) -> [AttributeDescription] {
        model.entitiesByName[entityName]?.attributes.filter { $0.preservesValueInHistoryOnDeletion && !$0.isTransient } ?? []
    }
}
