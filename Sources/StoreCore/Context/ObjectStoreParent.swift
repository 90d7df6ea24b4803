/// What a context reads from and saves into: the coordinator (for a root context) or the
/// parent context (for a child). Both answer in snapshots and IDs.
protocol ObjectStoreParent: AnyObject {
    /// Runs a fetch; managed-object results come back as snapshots.
    func fetchForChild(_ request: StoreFetchRequest) throws -> StoreFetchResult
    /// The current values of an object, or `nil` when it does not exist.
    func snapshotForChild(_ objectID: ManagedObjectID) throws -> StoreSnapshot?
    /// The current values of several objects (a batch), leaving out those that do not exist.
    func snapshotsForChild(_ objectIDs: [ManagedObjectID]) throws -> [StoreSnapshot]
    /// The IDs a to-many relationship holds.
    func relationshipForChild(_ name: String, of objectID: ManagedObjectID) throws -> [ManagedObjectID]
    /// The saved (committed) values of an object, for `committedValues(forKeys:)`.
    func committedSnapshotForChild(_ objectID: ManagedObjectID) throws -> StoreSnapshot?
}
