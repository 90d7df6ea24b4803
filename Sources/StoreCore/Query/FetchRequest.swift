/// A type a fetch can return: managed objects (and subclasses), object IDs or dictionaries.
///
/// For example:
///
/// ```swift
/// let posts = try context.fetch(FetchRequest<Post>())                               // [Post]
/// let ids = try context.fetch(FetchRequest<ManagedObjectID>(entityName: "Post"))     // [ManagedObjectID]
/// let rows = try context.fetch(FetchRequest<FetchedDictionary>(entityName: "Post"))  // [FetchedDictionary]
/// Post.fetchResultType                                                              // .managedObject
/// ```
public protocol FetchRequestResult {
    /// The result type a ``FetchRequest`` of this type asks for.
    static var fetchResultType: FetchResultType { get }
}

extension ManagedObjectID: FetchRequestResult {
    /// `.managedObjectID`: a `ManagedObjectID` request returns only IDs (`NSManagedObjectIDResultType`).
    public static var fetchResultType: FetchResultType { .managedObjectID }
}

/// A search for objects of one entity: which (predicate), in what order, how many — typed by
/// what it returns, as in Core Data's `NSFetchRequest<ResultType>`.
///
/// Every option of ``StoreFetchRequest`` can be read and set directly on the request.
///
/// For example:
///
/// ```swift
/// var request = FetchRequest<Post>()                     // entity from the class name
/// request.predicate = .comparison(.init("title", .beginsWith, .constant("Misty")))
/// request.sortDescriptors = [.descending("timestamp")]
/// request.fetchLimit = 20
/// let posts = try context.fetch(request)                 // [Post]
///
/// let ids = try context.fetch(FetchRequest<ManagedObjectID>(entityName: "Post"))
/// let any = try context.fetch(FetchRequest<ManagedObject>(entityName: "Comment"))
///
/// var perPlace = FetchRequest<FetchedDictionary>(entityName: "Quake")
/// perPlace.propertiesToFetch = ["place", .expression(.init(name: "n", expression: .function("count:", [.keyPath("place")])))]
/// perPlace.propertiesToGroupBy = ["place"]
/// let rows = try context.fetch(perPlace)                 // [["place": "Tokyo", "n": 3], …]
/// ```
///
/// As in Core Data, dictionary results reflect the saved state: they ignore the context's
/// unsaved changes.
@dynamicMemberLookup
public struct FetchRequest<Result: FetchRequestResult>: Sendable {
    /// The request as contexts hand it to stores.
    public var storeRequest: StoreFetchRequest

    /// A request for objects of the named entity.
    public init(entityName: String) {
        storeRequest = StoreFetchRequest(entityName: entityName, resultType: Result.fetchResultType)
    }

    /// A request with a predicate and sort descriptors.
    public init(entityName: String, predicate: StorePredicate?, sortDescriptors: [StoreSortDescriptor] = []) {
        self.init(entityName: entityName)
        storeRequest.predicate = predicate
        storeRequest.sortDescriptors = sortDescriptors
    }

    /// Any option of the underlying `StoreFetchRequest`, read and set on the request itself
    /// (`request.fetchLimit = 20`), as on Core Data's `NSFetchRequest`.
    public subscript<Value>(dynamicMember keyPath: WritableKeyPath<StoreFetchRequest, Value>) -> Value {
        get { storeRequest[keyPath: keyPath] }
        set { storeRequest[keyPath: keyPath] = newValue }
    }
}

extension FetchRequest where Result: ManagedObject {
    /// A request for the entity named after `Result` (see ``ManagedObject/entityName``).
    public init() {
        self.init(entityName: Result.entityName)
    }
}
