import Foundation
import StoreCore
import StoreSQL

extension SQLiteStore {
    /// Runs `body` with the store's reads on the pinned reader (``StoreSQL/SQLGenerationView``).
    package func reading<T>(pinnedTo reader: SQLitePinnedReader, _ body: () throws -> T) throws -> T {
        do {
            return try SQLiteConnectionPool.$pinned.withValue(reader, operation: body)
        } catch let expired as PinnedSession<SQLiteConnection>.Expired {
            throw StoreError(.queryGenerationUnavailable, url: url, "the pinned query generation was released after \(Int(expired.lifetime)) s (sqliteQueryGenerationLifetime) so that WAL checkpoints can proceed; move to a new one with setQueryGenerationFrom(.current)")
        }
    }
}

extension SQLiteStore: QueryGenerationStore {
    /// A reader of its own with a read transaction open; see `PersistentStoreOption.sqliteMaximumQueryGenerations`
    /// and `PersistentStoreOption.sqliteQueryGenerationLifetime` for its limits.
    public func pinQueryGeneration() throws -> any StoreReading {
        do {
            return SQLGenerationView(store: self, pin: try sqlite { try pool.pinReader() })
        } catch let refusal as SQLitePinnedReader.Refusal {
            throw error(for: refusal)
        }
    }

    func error(for refusal: SQLitePinnedReader.Refusal) -> StoreError {
        switch refusal {
        case .inMemory:
            StoreError(.queryGenerationUnavailable, url: url, "an in-memory SQLite database has one connection, so it cannot pin a query generation")
        case .limit(let limit):
            StoreError(.queryGenerationUnavailable, url: url, "the store already holds \(limit) pinned query generations (sqliteMaximumQueryGenerations); unpin one first")
        }
    }
}
