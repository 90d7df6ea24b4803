import Foundation
import StoreCore
import StoreSQL

/// A SQLite store's pinned query generation: the store's own reads, run on a pinned reader.
final class SQLiteGenerationView: StoreReading {
    let store: SQLiteStore
    let reader: PinnedReader

    init(store: SQLiteStore, reader: PinnedReader) {
        self.store = store
        self.reader = reader
    }

    var identifier: String { store.identifier }

    private func pinned<T>(_ body: () throws -> T) throws -> T {
        do {
            return try ConnectionPool.$pinned.withValue(reader, operation: body)
        } catch let expired as PinnedSession<SQLiteConnection>.Expired {
            throw StoreError(.queryGenerationUnavailable, url: store.url, "the pinned query generation was released after \(Int(expired.lifetime)) s (sqliteQueryGenerationLifetime) so that WAL checkpoints can proceed; move to a new one with setQueryGenerationFrom(.current)")
        }
    }

    func execute(_ request: StoreFetchRequest) throws -> StoreFetchResult { try pinned { try store.execute(request) } }
    func snapshot(for objectID: ManagedObjectID) throws -> StoreSnapshot? { try pinned { try store.snapshot(for: objectID) } }
    func snapshots(for objectIDs: [ManagedObjectID]) throws -> [StoreSnapshot] { try pinned { try store.snapshots(for: objectIDs) } }
    func objectIDs(forRelationship name: String, of objectID: ManagedObjectID) throws -> [ManagedObjectID] {
        try pinned { try store.objectIDs(forRelationship: name, of: objectID) }
    }
}

extension SQLiteStore: QueryGenerationStore {
    /// A reader of its own with a read transaction open; see `PersistentStoreOption.sqliteMaximumQueryGenerations`
    /// and `PersistentStoreOption.sqliteQueryGenerationLifetime` for its limits.
    public func pinQueryGeneration() throws -> any StoreReading {
        do {
            return SQLiteGenerationView(store: self, reader: try sqlite { try pool.pinReader() })
        } catch let refusal as PinnedReader.Refusal {
            throw error(for: refusal)
        }
    }

    func error(for refusal: PinnedReader.Refusal) -> StoreError {
        switch refusal {
        case .inMemory:
            StoreError(.queryGenerationUnavailable, url: url, "an in-memory SQLite database has one connection, so it cannot pin a query generation")
        case .limit(let limit):
            StoreError(.queryGenerationUnavailable, url: url, "the store already holds \(limit) pinned query generations (sqliteMaximumQueryGenerations); unpin one first")
        }
    }
}
