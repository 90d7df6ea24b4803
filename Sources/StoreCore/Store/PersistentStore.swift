import Foundation

/// A backend that holds objects: the in-memory store, SQLite, XML, binary, or your own.
///
/// Stores never see managed objects or contexts, only `Sendable` values: fetch requests,
/// snapshots, change sets and IDs. They must be safe to call from any thread. Register a store
/// type with ``PersistentStoreRegistry`` and load it through a ``PersistentStoreDescription``.
///
/// For example, a store that answers from a dictionary:
///
/// ```swift
/// final class MyStore: PersistentStore { … }
/// PersistentStoreRegistry.register(PersistentStoreType(rawValue: "mine")) { request in
///     try MyStore(model: request.model, description: request.description)
/// }
/// ```
public protocol PersistentStore: StoreReading {
    /// The store's unique identifier; it appears in its objects' IDs and URIs.
    var identifier: String { get }
    /// The store's type.
    var type: PersistentStoreType { get }
    /// Where the store lives, if anywhere.
    var url: URL? { get }
    /// The model configuration the store holds (`nil`: every entity).
    var configurationName: String? { get }
    /// Whether saves are refused.
    var isReadOnly: Bool { get }
    /// The store's metadata.
    var metadata: StoreMetadata { get }

    /// Replaces the application part of the metadata and records it.
    func setMetadata(_ metadata: StoreMetadata) throws
    /// Runs a fetch over the saved objects.
    func execute(_ request: StoreFetchRequest) throws -> StoreFetchResult
    /// An object's saved values, or `nil` when the store does not hold it.
    func snapshot(for objectID: ManagedObjectID) throws -> StoreSnapshot?
    /// The saved values of several objects, in the order given, leaving out those the store
    /// does not hold. Stores that can answer in one round trip should (batched fetches ask
    /// for a batch at a time); the default asks ``snapshot(for:)`` for each.
    func snapshots(for objectIDs: [ManagedObjectID]) throws -> [StoreSnapshot]
    /// The IDs a to-many relationship of a saved object holds (in order for ordered ones).
    func objectIDs(forRelationship name: String, of objectID: ManagedObjectID) throws -> [ManagedObjectID]
    /// The IDs a to-many relationship holds for each of several saved objects, by owner (owners
    /// holding none may be left out). Stores that can answer in one round trip should (copying a
    /// store asks for a batch at a time); the default asks ``objectIDs(forRelationship:of:)``
    /// for each.
    func objectIDs(forRelationship name: String, ofObjects objectIDs: [ManagedObjectID]) throws -> [ManagedObjectID: [ManagedObjectID]]
    /// New permanent IDs, one per entity name given, in order.
    func newObjectIDs(forEntityNames entityNames: [String]) throws -> [ManagedObjectID]
    /// Applies a change set entirely or not at all.
    func save(_ changes: StoreChangeSet) throws
    /// Gives new objects permanent IDs (one per entity name, in order) and saves the change set
    /// `makeChanges` builds with them, entirely or not at all — in one write transaction where
    /// the store has transactions, so that a failed save spends no IDs. `makeChanges` only
    /// builds values; it never calls the store. The default asks ``newObjectIDs(forEntityNames:)``
    /// and then ``save(_:)``.
    ///
    /// - Returns: the change set that was saved.
    func save(
        newObjectsOf entityNames: [String], _ makeChanges: ([ManagedObjectID]) throws -> StoreChangeSet
    ) throws -> StoreChangeSet
    /// Executes a batch insert, update or delete entirely or not at all, writing straight to the
    /// store. The default runs it through the other methods (``BatchExecutor``); stores that can
    /// do the work themselves (SQLite, in SQL) should.
    func execute(_ request: StoreBatchRequest) throws -> StoreBatchResult
    /// Releases the store's resources; called when the store is removed from its coordinator.
    func unload() throws
}

extension PersistentStore {
    /// The default: asks `newObjectIDs(forEntityNames:)` (not at all for no names), builds the change
    /// set and hands it to `save(_:)` — two steps, not one transaction, so a failed save may spend IDs.
    public func save(
        newObjectsOf entityNames: [String], _ makeChanges: ([ManagedObjectID]) throws -> StoreChangeSet
    ) throws -> StoreChangeSet {
        let changes = try makeChanges(entityNames.isEmpty ? [] : newObjectIDs(forEntityNames: entityNames))
        try save(changes)
        return changes
    }

    /// The default: runs the batch request through `BatchExecutor`, which fetches, saves and reports
    /// through this store's other methods.
    public func execute(_ request: StoreBatchRequest) throws -> StoreBatchResult {
        try BatchExecutor(store: self, request: request).run()
    }

    /// The default: asks `snapshot(for:)` for each ID in turn, leaving out the objects the store
    /// does not hold.
    public func snapshots(for objectIDs: [ManagedObjectID]) throws -> [StoreSnapshot] {
        try objectIDs.compactMap { try snapshot(for: $0) }
    }

    /// The default: asks `objectIDs(forRelationship:of:)` for each owner in turn, so every owner given
    /// has an entry, empty when it holds none.
    public func objectIDs(forRelationship name: String, ofObjects objectIDs: [ManagedObjectID]) throws -> [ManagedObjectID: [ManagedObjectID]] {
        var result: [ManagedObjectID: [ManagedObjectID]] = [:]
        for id in objectIDs { result[id] = try self.objectIDs(forRelationship: name, of: id) }
        return result
    }
}

/// The name of a store type: `.sqlite`, `.xml`, `.binary`, `.inMemory`, `.postgres`, or your own.
///
/// For example:
///
/// ```swift
/// let description = PersistentStoreDescription(type: .inMemory)
/// let mine = PersistentStoreType(rawValue: "csv")
/// ```
public struct PersistentStoreType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The type's name, as registered with `PersistentStoreRegistry` (`"sqlite"`, `"memory"`…).
    public let rawValue: String
    /// A store type named `rawValue`.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The in-memory store (registered by `MemoryBackend` / `Stowage`).
    public static let inMemory = PersistentStoreType(rawValue: "memory")
    /// The SQLite store.
    public static let sqlite = PersistentStoreType(rawValue: "sqlite")
    /// The XML store.
    public static let xml = PersistentStoreType(rawValue: "xml")
    /// The binary property-list store.
    public static let binary = PersistentStoreType(rawValue: "binary")
    /// The PostgreSQL store (registered by `PostgresBackend` / `Stowage`); its URL is the
    /// server's, `postgres://user@host/database`. It is built only with the package trait
    /// `Postgres`; without it, loading such a store throws `StoreError` `storeTypeUnavailable`.
    public static let postgres = PersistentStoreType(rawValue: "postgres")

    public var description: String { rawValue }
}
