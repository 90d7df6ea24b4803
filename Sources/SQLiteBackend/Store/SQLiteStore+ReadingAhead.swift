import StoreCore
import StoreSQL

/// A batched fetch read in order has its next batches read on another thread, from a reader of
/// the pool, while the context makes the objects of the batches before
/// (``StoreCore/SnapshotReadingAhead``; WAL mode lets that reader run beside the context's own).
extension SQLiteStore: SnapshotReadingAhead {
    /// Starts reading the rows of a batch of IDs of one entity on another thread
    /// (``StoreSQL/SQLStore/startReadingSnapshotsOnAnotherThread(for:)``); `nil` — read them
    /// when needed instead — for a private in-memory database, whose one connection would
    /// only make the two threads take turns.
    ///
    /// For example:
    ///
    /// ```swift
    /// let rows = try store.startReadingSnapshots(for: nextIDs)?.wait()
    /// ```
    package func startReadingSnapshots(for objectIDs: [ManagedObjectID]) -> PendingSnapshots? {
        guard !pool.isInMemory else { return nil }
        return startReadingSnapshotsOnAnotherThread(for: objectIDs)
    }
}
