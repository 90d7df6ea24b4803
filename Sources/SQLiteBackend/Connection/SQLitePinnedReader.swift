import Foundation
import StoreSQL

/// A reader connection of a pool holding one read transaction open for a query generation: in
/// WAL mode every statement on it sees the database as it was when the transaction began
/// (``StoreSQL/PinnedSession`` ends it when released or past its lifetime).
///
/// For example:
///
/// ```swift
/// let pinned = try pool.pinReader()
/// let count = try SQLiteConnectionPool.$pinned.withValue(pinned) { try pool.read { try $0.scalar("SELECT COUNT(*) FROM ZPOST") } }
/// ```
package final class SQLitePinnedReader: Sendable {
    enum Refusal: Error {
        case inMemory
        case limit(Int)
    }

    let pool: SQLiteConnectionPool
    let session: PinnedSession<SQLiteConnection>

    init(pool: SQLiteConnectionPool, connection: SQLiteConnection, lifetime: Double) {
        self.pool = pool
        session = PinnedSession(connection: connection, lifetime: lifetime) { connection in
            if connection.isInTransaction { try? connection.execute("COMMIT") }
        }
    }

    func use<T>(_ body: (SQLiteConnection) throws -> T) throws -> T { try session.use(body) }

    deinit {
        session.end()
        pool.unpin()
    }
}
