#if Postgres  // the PostgreSQL store is built only with the Postgres package trait (Package.swift)
import Foundation
import StoreCore
import StoreSQL
import Synchronization

/// A connection of its own holding a repeatable-read, read-only transaction open for a query
/// generation: every statement on it sees the snapshot the transaction's first statement took
/// (``StoreSQL/PinnedSession`` ends it and closes the connection when released or past its lifetime).
package final class PostgresPinnedReader: Sendable {
    let pool: PostgresSessionPool
    let session: PinnedSession<PostgresSession>
    private let onEnd: @Sendable () -> Void

    init(pool: PostgresSessionPool, lifetime: Double, onEnd: @escaping @Sendable () -> Void) throws {
        self.pool = pool
        self.onEnd = onEnd
        let connection = try pool.makeDedicatedConnection(role: "generation")
        _ = try connection.run("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        _ = try connection.scalar("SELECT 1")   // the snapshot is taken here
        session = PinnedSession(connection: connection, lifetime: lifetime) { connection in
            _ = try? connection.run("ROLLBACK")
            connection.close()
        }
    }

    /// The task-local pinned reader the current reads use.
    @TaskLocal static var current: PostgresPinnedReader?

    func use<T>(_ body: (PostgresSession) throws -> T) throws -> T { try session.use(body) }

    deinit {
        session.end()
        onEnd()
    }
}

extension PostgresStore {
    /// Runs `body` with the store's reads on the pinned connection (``StoreSQL/SQLGenerationView``).
    package func reading<T>(pinnedTo reader: PostgresPinnedReader, _ body: () throws -> T) throws -> T {
        do {
            return try PostgresPinnedReader.$current.withValue(reader, operation: body)
        } catch let expired as PinnedSession<PostgresSession>.Expired {
            throw StoreError(.queryGenerationUnavailable, url: url, "the pinned query generation was released after \(Int(expired.lifetime)) s; move to a new one with setQueryGenerationFrom(.current)")
        }
    }
}

extension PostgresStore: QueryGenerationStore {
    /// The most generations pinned at once; each holds a connection of its own outside the pool.
    static let maximumPinnedGenerations = 4
    /// Seconds a pinned generation keeps its transaction.
    static let pinnedGenerationLifetime: Double = 300

    /// A connection of its own in a repeatable-read transaction (at most four at once, each for
    /// at most 300 s; past that the context's next read fails with
    /// `queryGenerationUnavailable`).
    public func pinQueryGeneration() throws -> any StoreReading {
        let allowed = pinnedGenerations.withLock { count -> Bool in
            guard count < Self.maximumPinnedGenerations else { return false }
            count += 1
            return true
        }
        guard allowed else {
            throw StoreError(.queryGenerationUnavailable, url: url, "the store already holds \(Self.maximumPinnedGenerations) pinned query generations; unpin one first")
        }
        do {
            let reader = try server {
                try PostgresPinnedReader(pool: pool, lifetime: Self.pinnedGenerationLifetime) { [weak self] in self?.pinnedGenerations.withLock { $0 -= 1 } }
            }
            return SQLGenerationView(store: self, pin: reader)
        } catch {
            pinnedGenerations.withLock { $0 -= 1 }
            throw error
        }
    }
}
#endif
