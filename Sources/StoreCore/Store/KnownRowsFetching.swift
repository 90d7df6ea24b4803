/// The rows of a fetch whose objects the asking context already holds with their values. A
/// fetch leaves such objects as they are (as Core Data does, unless the request sets
/// `shouldRefreshRefetchedObjects`), so their values need not be read: a store may return
/// their rows as snapshots holding the ID and version alone.
///
/// The context answers for its own registration, on the thread that waits for the fetch; the
/// store asks only while that fetch runs.
///
/// For example (inside the stores):
///
/// ```swift
/// let known = KnownRows { id in registered[id].map { !$0.isFault } ?? false }   // the context's
/// if known.contains(id) { return StoreSnapshot.partial(objectID: id, version: version, entity: entity) }
/// ```
package struct KnownRows: Sendable {
    private let holds: @Sendable (ManagedObjectID) -> Bool

    package init(_ holds: @escaping @Sendable (ManagedObjectID) -> Bool) { self.holds = holds }

    /// Whether the asking context holds the object of row `id` with its values.
    package func contains(_ id: ManagedObjectID) -> Bool { holds(id) }
}

/// A store that can leave the values of known rows unread (``KnownRows``): the SQL stores, where
/// reading a row's values is most of a fetch's cost. A context asks through its coordinator when
/// the fetched entity lives in one such store.
///
/// For example:
///
/// ```swift
/// let result = try store.execute(request, skippingValuesOf: known)   // known rows: IDs and versions only
/// ```
package protocol KnownRowsFetching: PersistentStore {
    /// What ``PersistentStore/execute(_:)`` returns for `request`, except that the snapshots of
    /// rows `known` contains may hold no values.
    ///
    /// - Throws: what ``PersistentStore/execute(_:)`` throws for the request.
    func execute(_ request: StoreFetchRequest, skippingValuesOf known: KnownRows) throws -> StoreFetchResult
}
