/// A store that can start reading snapshots and hand them over later, so the read overlaps
/// the caller's work (the PostgreSQL store: the query runs on the server and its rows are read on
/// the connection's thread while the context makes the objects of the batch before). A batched
/// fetch read in order asks for the rows of its next batches this way
/// (``PersistentStoreCoordinator`` passes the request on when one such store holds the IDs).
///
/// For example:
///
/// ```swift
/// let pending = store.startReadingSnapshots(for: nextIDs)   // nil: read them when needed instead
/// // … work on the current batch …
/// let rows = try pending?.wait()
/// ```
package protocol SnapshotReadingAhead: PersistentStore {
    /// Starts reading the snapshots of `objectIDs` (as ``PersistentStore/snapshots(for:)`` would
    /// return them), or returns `nil` when this read cannot be started ahead.
    func startReadingSnapshots(for objectIDs: [ManagedObjectID]) -> PendingSnapshots?
}

/// Snapshots a store is reading: ``wait()`` hands them over (or throws the store's error).
/// Dropped without waiting, it lets the read finish and forgets the rows.
///
/// For example:
///
/// ```swift
/// let pending = PendingSnapshots { try store.snapshots(for: ids) }
/// let snapshots = try pending.wait()
/// ```
package final class PendingSnapshots {
    private var body: (() throws -> [StoreSnapshot])?

    /// A read whose snapshots `wait` gives (called at most once).
    package init(_ wait: @escaping () throws -> [StoreSnapshot]) { body = wait }

    /// The snapshots, in the order asked, leaving out objects the store does not hold.
    ///
    /// - Throws: the store's error.
    package func wait() throws -> [StoreSnapshot] {
        guard let body else { throw StoreError(.io, "the snapshots read ahead were already handed over") }
        self.body = nil
        return try body()
    }
}
