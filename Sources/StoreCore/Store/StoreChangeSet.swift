/// The changes one save hands to a store: new objects, changed values and deleted objects.
///
/// Inserted snapshots are complete (every stored value, the to-many relationships, permanent
/// IDs); updated snapshots hold only the changed properties (``StoreSnapshot/heldProperties``),
/// with the version the change was based on; deleted objects carry the version last read. A
/// store applies the whole set or nothing, and refuses it with a ``MergeConflictError`` if any
/// version no longer matches. After a save, inserted objects have version 1 and each updated
/// object its old version plus one.
///
/// For example:
///
/// ```swift
/// var changes = StoreChangeSet()
/// changes.inserted.append(try StoreSnapshot(objectID: id, version: 0, entity: post, values: ["title": "Hello"]))
/// var update = StoreSnapshot.partial(objectID: otherID, version: 3, entity: post)
/// update["title"] = "Renamed"
/// changes.updated.append(update)
/// try store.save(changes)
/// ```
public struct StoreChangeSet: Sendable {
    /// New objects, as complete snapshots with permanent IDs, in insertion order.
    public var inserted: [StoreSnapshot] = []
    /// Changed objects, each snapshot holding only the changed properties and the version the
    /// change was based on.
    public var updated: [StoreSnapshot] = []
    /// Deleted objects, each with the version last read.
    public var deleted: [StoreSnapshot] = []
    /// The context's name and transaction author, for stores that record history.
    public var contextName: String?
    /// The saving context's `transactionAuthor`, for stores that record history (Core Data's
    /// `NSPersistentHistoryTransaction.author`).
    public var transactionAuthor: String?

    /// An empty change set.
    public init() {}

    /// Whether the set holds no change.
    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
}
