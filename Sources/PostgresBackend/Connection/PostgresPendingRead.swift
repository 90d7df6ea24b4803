#if Postgres  // the PostgreSQL store is built only with the Postgres package trait (Package.swift)
import Foundation
import StoreCore
import StoreSQL

/// A read of snapshots sent on a connection of the pool, whose rows the connection's thread turns
/// into snapshots while the caller goes on; ``finish()`` waits for them and gives the connection
/// back. Dropped unfinished, it waits for the statement's end (the rows are not wanted) before
/// giving the connection back, so the connection is idle when it is next used.
///
/// For example:
///
/// ```swift
/// guard let read = try PostgresPendingRead(pool: pool, query: query) else { … }   // nil: no spare connection
/// let snapshots = try read.finish()
/// ```
final class PostgresPendingRead: @unchecked Sendable {
    // @unchecked: made, finished and dropped by one caller (a batched fetch on its context's
    // queue), one after the other; the rows are gathered by `PostgresCollecting`.
    private let pool: PostgresSessionPool
    private let session: PostgresSession
    private var collecting: PostgresCollecting<StoreSnapshot>?

    /// Starts `query` on a spare connection of `pool`; `nil` when the pool has none to spare.
    ///
    /// - Throws: ``PostgresServerError`` or the pool's error when the statement cannot be sent.
    init?(pool: PostgresSessionPool, query: SnapshotQuery) throws {
        guard let session = try pool.checkOutSpare() else { return nil }
        do {
            collecting = try session.startCollecting(query.sql, query.bindings) { try query.snapshot(from: $0) }
        } catch {
            pool.checkIn(session)
            throw error
        }
        self.pool = pool
        self.session = session
    }

    /// The snapshots the statement read, in the order it returned them.
    ///
    /// - Throws: ``PostgresServerError``, or what reading a row threw.
    func finish() throws -> [StoreSnapshot] {
        guard let collecting else { throw StoreError(.io, "the rows read ahead were already handed over") }
        self.collecting = nil
        defer { pool.checkIn(session) }
        return try collecting.finish()
    }

    deinit {
        guard let collecting else { return }
        // Unwanted rows: only the statement's end matters here, whatever it was (a failure
        // that broke the connection marks the session broken, and the pool then closes it).
        _ = try? collecting.finish()
        pool.checkIn(session)
    }
}
#endif
