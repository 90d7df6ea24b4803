/// What a fetch returns, as in Core Data's `NSFetchRequestResultType`.
///
/// For example:
///
/// ```swift
/// FetchRequest<ManagedObjectID>(entityName: "Post").resultType     // .managedObjectID
/// let request = StoreFetchRequest(entityName: "Post", resultType: .dictionary)
/// let total = try context.count(for: FetchRequest<Post>())          // a .count fetch
/// ```
public enum FetchResultType: Sendable, Hashable {
    /// Managed objects (Core Data's `.managedObjectResultType`).
    case managedObject
    /// Object IDs only (Core Data's `.managedObjectIDResultType`).
    case managedObjectID
    /// One dictionary of values per result (Core Data's `.dictionaryResultType`); see `propertiesToFetch`.
    case dictionary
    /// Only the number of results (Core Data's `.countResultType`); contexts give it through `count(for:)`.
    case count
}

/// The `Sendable` description of a fetch that contexts hand to the coordinator and stores.
///
/// Users normally build a ``FetchRequest`` instead, which wraps this and fixes the result type.
///
/// For example:
///
/// ```swift
/// var request = StoreFetchRequest(entityName: "Post", resultType: .managedObjectID)
/// request.sortDescriptors = [.descending("timestamp")]
/// request.fetchLimit = 10
/// ```
public struct StoreFetchRequest: Sendable, Hashable {
    /// The entity to fetch.
    public var entityName: String
    /// Which objects to return; `nil` returns every object of the entity.
    public var predicate: StorePredicate?
    /// The order of the results; unsorted results come in an unspecified order.
    public var sortDescriptors: [StoreSortDescriptor] = []
    /// The most results to return (0: no limit).
    public var fetchLimit: Int = 0
    /// How many leading results to skip.
    public var fetchOffset: Int = 0
    /// How many objects a batched result materializes at a time (0: all at once).
    public var fetchBatchSize: Int = 0
    /// What the fetch returns.
    public var resultType: FetchResultType
    /// Whether objects of sub-entities are included.
    public var includesSubentities: Bool = true
    /// Whether the context's unsaved inserts, updates and deletes are taken into account.
    public var includesPendingChanges: Bool = true
    /// Whether fetched objects start as faults (their values are still cached when
    /// ``includesPropertyValues`` is true, so first access needs no store round trip).
    public var returnsObjectsAsFaults: Bool = true
    /// Whether objects the context already holds take the values just fetched (Core Data's
    /// `shouldRefreshRefetchedObjects`; off by default: a held object keeps the values it has).
    /// Objects with unsaved changes keep them either way.
    public var shouldRefreshRefetchedObjects: Bool = false
    /// Whether the store returns property values with the IDs.
    public var includesPropertyValues: Bool = true
    /// Relationship key paths whose destinations are loaded along with the results.
    public var relationshipKeyPathsForPrefetching: [String] = []
    /// The columns of dictionary results (`nil`: every attribute).
    public var propertiesToFetch: [PropertyToFetch]?
    /// The columns dictionary results are grouped by; other columns must then be aggregates
    /// (or take the group's first value).
    public var propertiesToGroupBy: [PropertyToFetch]?
    /// A condition on grouped dictionary rows, naming their columns.
    public var havingPredicate: StorePredicate?
    /// Whether duplicate dictionary rows are dropped.
    public var returnsDistinctResults: Bool = false
    /// Why a typed predicate or sort given to the request could not be translated; thrown by the
    /// fetch (see ``FetchRequest/init(predicate:sortBy:)``).
    package var translationFailure: String?

    /// A request for every object of `entityName` (no predicate, order or limit), returning `resultType`.
    public init(entityName: String, resultType: FetchResultType = .managedObject) {
        self.entityName = entityName
        self.resultType = resultType
    }
}

/// What a store returns for a ``StoreFetchRequest``.
///
/// For example:
///
/// ```swift
/// switch request.resultType {                  // in a store's execute(_:), with the matching ids
/// case .count: return .count(ids.count)
/// case .managedObjectID: return .objectIDs(ids)
/// case .managedObject: return .snapshots(try ids.compactMap { try snapshot(for: $0) })
/// case .dictionary: throw FetchError(.unsupported, "no dictionary results")
/// }
/// ```
public enum StoreFetchResult: Sendable {
    /// Objects' saved values (for managed-object results).
    case snapshots([StoreSnapshot])
    /// Object IDs (for object-ID results, or managed objects without property values).
    case objectIDs([ManagedObjectID])
    /// The number of matching objects.
    case count(Int)
    /// One dictionary per result row (for dictionary results).
    case dictionaries([[String: StoreValue]])
}
