/// What a context reads from and saves into: the coordinator (for a root context) or the
/// parent context (for a child). Both answer in snapshots and IDs.
protocol ObjectStoreParent: AnyObject {
    /// Runs a fetch; managed-object results come back as snapshots.
    func fetchForChild(_ request: StoreFetchRequest) throws -> StoreFetchResult
    /// Runs a fetch whose known rows (objects the asking context holds with values) may come
    /// back without values (see ``KnownRows``).
    func fetchForChild(_ request: StoreFetchRequest, knownRows: KnownRows) throws -> StoreFetchResult
    /// The current values of an object, or `nil` when it does not exist.
    func snapshotForChild(_ objectID: ManagedObjectID) throws -> StoreSnapshot?
    /// The current values of several objects (a batch), leaving out those that do not exist.
    func snapshotsForChild(_ objectIDs: [ManagedObjectID]) throws -> [StoreSnapshot]
    /// The IDs a to-many relationship holds.
    func relationshipForChild(_ name: String, of objectID: ManagedObjectID) throws -> [ManagedObjectID]
    /// The saved (committed) values of an object, for `committedValues(forKeys:)`.
    func committedSnapshotForChild(_ objectID: ManagedObjectID) throws -> StoreSnapshot?
    /// The IDs an object-ID fetch matches, compactly.
    func objectIDListForChild(_ request: StoreFetchRequest) throws -> CompactObjectIDList
    /// A number that stays the same as long as snapshots read from this parent stay current
    /// (``PersistentStoreCoordinator/writeCount``; constant for a pinned query generation), or
    /// `nil` when the parent cannot tell (a parent context): then a batched fetch reads no batch ahead.
    var readAheadMark: Int? { get }
    /// Starts reading the current values of several objects, to be waited for later
    /// (``SnapshotReadingAhead``), or `nil` when they are best read when needed.
    func startSnapshotsForChild(_ objectIDs: [ManagedObjectID]) -> PendingSnapshots?
    /// How many reads a batched fetch of `objectID`'s entity keeps under way
    /// (``SnapshotReadingAhead/readsUnderWay``; ``BatchReadAhead/maximumPendingReads`` by default).
    func readsUnderWay(for objectID: ManagedObjectID) -> Int
}

extension ObjectStoreParent {
    /// Every row with its values: only the coordinator passes known rows on to a store.
    func fetchForChild(_ request: StoreFetchRequest, knownRows: KnownRows) throws -> StoreFetchResult {
        try fetchForChild(request)
    }

    /// A parent context cannot tell: no batch is read ahead.
    var readAheadMark: Int? { nil }
    /// Read when needed.
    func startSnapshotsForChild(_ objectIDs: [ManagedObjectID]) -> PendingSnapshots? { nil }
    /// The default.
    func readsUnderWay(for objectID: ManagedObjectID) -> Int { BatchReadAhead.maximumPendingReads }

    /// The IDs an object-ID fetch matches, compactly (the parent's
    /// ``fetchForChild(_:)`` answer, compacted; the coordinator reads them straight from a store
    /// that can).
    func objectIDListForChild(_ request: StoreFetchRequest) throws -> CompactObjectIDList {
        switch try fetchForChild(request) {
        case .objectIDs(let ids): return CompactObjectIDList(ids)
        case .snapshots(let snapshots): return CompactObjectIDList(snapshots.map(\.objectID))
        case .count, .dictionaries: throw FetchError(.wrongResultType, "the store did not return object IDs for an object-ID fetch")
        }
    }
}
