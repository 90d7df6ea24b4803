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
    public enum Target: Hashable, Sendable {
        case fetchRequest(StoreFetchRequest)
        case objectIDs([ManagedObjectID])
    }

    public var target: Target
    public var resultType: BatchResultType = .statusOnly

    public init<Result>(fetchRequest: FetchRequest<Result>) {
        target = .fetchRequest(fetchRequest.storeRequest)
    }

    public init(fetchRequest: StoreFetchRequest) {
        target = .fetchRequest(fetchRequest)
    }

    public init(objectIDs: [ManagedObjectID]) {
        target = .objectIDs(objectIDs)
    }
}
