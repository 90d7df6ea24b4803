import Foundation

/// Deletes the objects a fetch request selects (its predicate, sort order and fetch limit), or a
/// list of object IDs, straight in the store — Core Data's `NSBatchDeleteRequest`.
///
/// Delete rules are applied in the store: cascade deletes related objects too, nullify removes
/// the deleted objects from their inverses, and deny refuses the whole request while a deny
/// relationship still holds an object that is not deleted with it.
///
/// For example:
///
/// ```swift
/// var oldest = FetchRequest<ManagedObject>(entityName: "Quake", predicate: nil, sortDescriptors: [.ascending("time")])
/// oldest.fetchLimit = 1000
/// var request = BatchDeleteRequest(fetchRequest: oldest)
/// request.resultType = .objectIDs
/// let deleted = try context.execute(request).objectIDs ?? []
/// ```
public struct BatchDeleteRequest: Hashable, Sendable {
    /// What to delete.
    ///
    /// For example:
    ///
    /// ```swift
    /// let request = BatchDeleteRequest(objectIDs: [post.objectID])
    /// if case .objectIDs(let ids) = request.target { print(ids.count) }   // 1
    /// ```
    public enum Target: Hashable, Sendable {
        /// The objects a fetch request selects (its predicate, sort order and fetch limit), like
        /// `NSBatchDeleteRequest(fetchRequest:)`.
        case fetchRequest(StoreFetchRequest)
        /// These objects, like `NSBatchDeleteRequest(objectIDs:)`; each is deleted in the store
        /// that holds it.
        case objectIDs([ManagedObjectID])
    }

    /// What the request deletes: a fetch request's objects or a list of IDs.
    public var target: Target
    /// What executing the request returns — like Core Data's `NSBatchDeleteRequest.resultType`;
    /// `.objectIDs` lists the deleted objects, cascades included. `.statusOnly` by default.
    public var resultType: BatchResultType = .statusOnly

    /// Deletes the objects a fetch request selects — Core Data's `NSBatchDeleteRequest(fetchRequest:)`.
    public init<Result>(fetchRequest: FetchRequest<Result>) {
        target = .fetchRequest(fetchRequest.storeRequest)
    }

    /// Deletes the objects a store-level fetch request selects.
    public init(fetchRequest: StoreFetchRequest) {
        target = .fetchRequest(fetchRequest)
    }

    /// Deletes these objects — Core Data's `NSBatchDeleteRequest(objectIDs:)`.
    public init(objectIDs: [ManagedObjectID]) {
        target = .objectIDs(objectIDs)
    }
}
