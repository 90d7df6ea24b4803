import Dispatch
import StoreCore

/// The rows of a batched fetch's next batches read on another thread while the context works
/// (``StoreCore/SnapshotReadingAhead``), for a SQL store whose driver reads synchronously
/// (SQLite: a reader of its pool; PostgreSQL reads ahead on its connections' threads instead).
extension SQLStore {
    /// Starts reading the rows of a batch of IDs of one entity on another thread, as one query
    /// on a reader connection, each row placed at its ID's position there; `nil` — read them
    /// when needed instead — for IDs of several entities or of another store, or while a query
    /// generation is pinned (its reader belongs to the calling thread). A read that fails
    /// reports the store's error from ``PendingSnapshots/wait()``.
    ///
    /// For example:
    ///
    /// ```swift
    /// let pending = store.startReadingSnapshotsOnAnotherThread(for: nextIDs)
    /// let rows = try pending?.wait()   // rows[i] is the row of nextIDs[i]
    /// ```
    package func startReadingSnapshotsOnAnotherThread(for objectIDs: [ManagedObjectID]) -> PendingSnapshots? {
        guard !isReadingPinnedGeneration, let first = objectIDs.first, first.storeIdentifier == identifier,
            let root = schema.tables[first.entityName]?.rootName, objectIDs.allSatisfy({ $0.sharesEntityAndStore(with: first) })
        else { return nil }
        let reading = SnapshotReadOnAnotherThread { [self] in
            let keys = objectIDs.compactMap(\.primaryKey)
            let found = try read { try snapshots(ofRoot: root, keys: keys, on: $0) }
            return Self.placed(found, for: objectIDs, keys: keys)
        }
        return PendingSnapshots { try reading.wait() }
    }
}

/// A read running on a thread of its own; ``wait()`` hands its rows over. Dropped without
/// waiting, the read still ends on its thread (giving its connection back) and its rows are freed.
private final class SnapshotReadOnAnotherThread: @unchecked Sendable {
    // @unchecked: `result` is written once by the reading thread before it signals `done`,
    // and read only after waiting for `done`.
    private let done = DispatchSemaphore(value: 0)
    private var result: Result<[StoreSnapshot?], any Error>?

    init(_ body: @escaping @Sendable () throws -> [StoreSnapshot?]) {
        DispatchQueue.global().async { [self] in
            result = Result { try body() }
            done.signal()
        }
    }

    /// The rows, once the read ended.
    ///
    /// - Throws: what the read threw.
    func wait() throws -> [StoreSnapshot?] {
        done.wait()
        guard let result else { throw StoreError(.io, "the rows read ahead were lost") }
        return try result.get()
    }
}
