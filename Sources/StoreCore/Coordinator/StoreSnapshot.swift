/// An object's saved state as a store returns it: its ID, its version and its values.
///
/// `values` holds attributes and to-one relationships (as ``StoreValue/objectID(_:)`` or
/// ``StoreValue/null``); `toMany` holds the to-many relationships a store returns eagerly (atomic
/// stores return all of them; others leave them out, and contexts ask for them when first read).
///
/// For example:
///
/// ```swift
/// let snapshot = StoreSnapshot(objectID: id, version: 1, values: ["title": "Misty Morning"])
/// snapshot["title"]            // .string("Misty Morning")
/// snapshot["missing"]          // .null
/// ```
public struct StoreSnapshot: Sendable, Hashable {
    public var objectID: ManagedObjectID
    /// Incremented by every save that changes the object (1 after insertion); used for optimistic locking.
    public var version: Int64
    public var values: [String: StoreValue]
    public var toMany: [String: [ManagedObjectID]]

    public init(
        objectID: ManagedObjectID, version: Int64, values: [String: StoreValue] = [:],
        toMany: [String: [ManagedObjectID]] = [:]
    ) {
        self.objectID = objectID
        self.version = version
        self.values = values
        self.toMany = toMany
    }

    /// The value for `key`, `.null` when absent.
    public subscript(key: String) -> StoreValue {
        values[key] ?? .null
    }
}

/// The changes one save hands to a store: new objects, changed values and deleted objects.
///
/// Inserted snapshots carry every stored value and permanent IDs; updated snapshots carry only
/// the changed keys, with the version the change was based on; deleted objects carry the version
/// last read. A store applies the whole set or nothing, and refuses it with a
/// ``MergeConflictError`` if any version no longer matches. After a save, inserted objects have
/// version 1 and each updated object its old version plus one.
///
/// For example:
///
/// ```swift
/// var changes = StoreChangeSet()
/// changes.inserted.append(StoreSnapshot(objectID: id, version: 0, values: ["title": "Hello"]))
/// try store.save(changes)
/// ```
public struct StoreChangeSet: Sendable {
    public var inserted: [StoreSnapshot] = []
    public var updated: [StoreSnapshot] = []
    public var deleted: [StoreSnapshot] = []
    /// The context's name and transaction author, for stores that record history.
    public var contextName: String?
    public var transactionAuthor: String?

    public init() {}

    /// Whether the set holds no change.
    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
}
