/// What contexts read from a store: its current saved state (every ``PersistentStore``) or a
/// state pinned at one moment (a query generation, ``QueryGenerationStore``).
///
/// For example:
///
/// ```swift
/// let reading: any StoreReading = try store.pinQueryGeneration()
/// let posts = try reading.execute(StoreFetchRequest(entityName: "Post", resultType: .managedObject))
/// ```
public protocol StoreReading: AnyObject, Sendable {
    /// The identifier of the store read.
    var identifier: String { get }
    /// Runs a fetch over the saved objects.
    func execute(_ request: StoreFetchRequest) throws -> StoreFetchResult
    /// An object's saved values, or `nil` when the store does not hold it.
    func snapshot(for objectID: ManagedObjectID) throws -> StoreSnapshot?
    /// The saved values of several objects, in the order given, leaving out those not held.
    func snapshots(for objectIDs: [ManagedObjectID]) throws -> [StoreSnapshot]
    /// The IDs a to-many relationship of a saved object holds.
    func objectIDs(forRelationship name: String, of objectID: ManagedObjectID) throws -> [ManagedObjectID]
}

/// A store that can pin a query generation: a read-only view of its committed state at one
/// moment, which later commits (by anyone) do not change, until the view is released (when the
/// last reference to it goes). Contexts pin one with
/// ``ManagedObjectContext/setQueryGenerationFrom(_:)``.
///
/// SQLite holds a read transaction open on a connection of its own; PostgreSQL a repeatable-read
/// transaction; the atomic stores keep the graph as it was.
///
/// For example:
///
/// ```swift
/// let pinned = try store.pinQueryGeneration()
/// // … another context saves …
/// try pinned.execute(request)    // the state before that save
/// ```
public protocol QueryGenerationStore: PersistentStore {
    /// The store's committed state now, kept until the returned view is released.
    ///
    /// - Throws: ``StoreError`` (`queryGenerationUnavailable`) when the store holds
    ///   as many pinned generations as it allows, or cannot pin one.
    func pinQueryGeneration() throws -> any StoreReading
}
