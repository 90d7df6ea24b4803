/// A store that can start reading snapshots and hand them over later, so the read overlaps
/// the caller's work (the SQL stores: PostgreSQL runs the query on the server and reads its rows
/// on the connection's thread, SQLite reads them on another thread from a reader of its pool,
/// while the context makes the objects of the batch before). A batched
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
    /// Starts reading the snapshots of `objectIDs` (what ``PersistentStore/snapshots(for:)``
    /// would return, each at its ID's position), or returns `nil` when this read cannot be
    /// started ahead.
    func startReadingSnapshots(for objectIDs: [ManagedObjectID]) -> PendingSnapshots?
    /// How many such reads a batched fetch keeps under way: ``BatchReadAhead/maximumPendingReads``
    /// (one) unless the store says otherwise (PostgreSQL: two, so the server runs the next
    /// statement while the connection's thread decodes the rows of the one before).
    var readsUnderWay: Int { get }
}

extension SnapshotReadingAhead {
    package var readsUnderWay: Int { BatchReadAhead.maximumPendingReads }
}

/// Snapshots a store is reading: ``wait()`` hands them over (or throws the store's error).
/// Dropped without waiting, it lets the read finish and forgets the rows.
///
/// For example:
///
/// ```swift
/// let pending = PendingSnapshots { try ids.map { try store.snapshot(for: $0) } }
/// let rows = try pending.wait()   // rows[i] is the row of ids[i], nil where the store has none
/// ```
package final class PendingSnapshots {
    private var body: (() throws -> [StoreSnapshot?])?

    /// A read whose rows `wait` gives (called at most once).
    package init(_ wait: @escaping () throws -> [StoreSnapshot?]) { body = wait }

    /// The row of each ID asked, at its position: `nil` where the store holds none (the store
    /// places them as they are read, so the caller never matches rows to IDs).
    ///
    /// - Throws: the store's error.
    package func wait() throws -> [StoreSnapshot?] {
        guard let body else { throw StoreError(.io, "the snapshots read ahead were already handed over") }
        self.body = nil
        return try body()
    }
}
