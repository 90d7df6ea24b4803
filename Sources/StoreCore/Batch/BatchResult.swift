/// What a batch request returns: Core Data's `resultType` of batch insert, update and delete requests.
///
/// For example:
///
/// ```swift
/// var request = BatchDeleteRequest(fetchRequest: FetchRequest<Quake>(entityName: "Quake", predicate: "magnitude < 1"))
/// request.resultType = .objectIDs
/// ```
public enum BatchResultType: Hashable, Sendable {
    /// Whether the request succeeded.
    case statusOnly
    /// How many objects it inserted, updated or deleted.
    case count
    /// The IDs of the objects it inserted, updated or deleted.
    case objectIDs
}

/// The result of an executed batch request, by its ``BatchResultType``.
///
/// For example:
///
/// ```swift
/// let ids = try context.execute(request).objectIDs ?? []
/// ManagedObjectContext.mergeChanges(fromRemoteContextSave: [.deletedObjectIDs: ids], into: [viewContext])
/// ```
public enum BatchResult: Hashable, Sendable {
    /// For `.statusOnly`: whether the request succeeded (a request that fails throws instead).
    case status(Bool)
    /// For `.count`: how many objects the request inserted (or upserted), updated or deleted.
    case count(Int)
    /// For `.objectIDs`: the IDs of the objects inserted (or upserted), updated or deleted.
    case objectIDs([ManagedObjectID])

    /// The value of a `.status` result, else `nil` — Core Data's batch `result` for `.statusOnly`.
    public var status: Bool? { if case .status(let value) = self { value } else { nil } }
    /// The count of a `.count` result, else `nil`.
    public var count: Int? { if case .count(let value) = self { value } else { nil } }
    /// The IDs of an `.objectIDs` result, else `nil`.
    public var objectIDs: [ManagedObjectID]? { if case .objectIDs(let value) = self { value } else { nil } }
}
