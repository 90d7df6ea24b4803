/// One object whose saved state changed since this context last read it.
///
/// For example:
///
/// ```swift
/// for conflict in error.conflicts { print(conflict.objectID, conflict.expectedVersion, conflict.storeVersion) }
/// ```
public struct MergeConflict: Sendable {
    /// The object in conflict.
    public let objectID: ManagedObjectID
    /// The version this context's change was based on.
    public let expectedVersion: Int64
    /// The version in the store now (0 when the object has been deleted there).
    public let storeVersion: Int64
    /// The object's current saved values, or `nil` when it was deleted.
    public let storeSnapshot: StoreSnapshot?

    /// Creates a conflict record (Core Data's `NSMergeConflict`), as a store does when a save finds
    /// that the object's stored version is no longer the one the change was based on.
    public init(objectID: ManagedObjectID, expectedVersion: Int64, storeVersion: Int64, storeSnapshot: StoreSnapshot?) {
        self.objectID = objectID
        self.expectedVersion = expectedVersion
        self.storeVersion = storeVersion
        self.storeSnapshot = storeSnapshot
    }
}

/// A save refused because other saves changed the same objects first (optimistic locking),
/// under ``MergePolicy/error``. Nothing was saved; the context keeps its changes.
///
/// For example:
///
/// ```swift
/// do { try context.save() }
/// catch let error as MergeConflictError {
///     context.mergePolicy = .mergeByPropertyObjectTrump
///     try context.save()
/// }
/// ```
public struct MergeConflictError: Error, CustomStringConvertible, Sendable {
    /// Every object in conflict.
    public let conflicts: [MergeConflict]

    /// Creates the error for a save refused over `conflicts`, as stores and the `.error` merge policy
    /// throw it.
    public init(conflicts: [MergeConflict]) { self.conflicts = conflicts }

    public var description: String {
        "merge conflict on \(conflicts.count) object(s): "
            + conflicts.map { "\($0.objectID) (expected version \($0.expectedVersion), store has \($0.storeVersion))" }
            .joined(separator: ", ")
    }
}
