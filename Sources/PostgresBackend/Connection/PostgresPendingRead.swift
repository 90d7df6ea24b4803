#if Postgres  // the PostgreSQL store is built only with the Postgres package trait (Package.swift)
import Foundation
import StoreCore
import StoreSQL

/// A read of snapshots sent on a connection of the pool, whose rows the connection's thread turns
/// into snapshots — and, after the last one, places at their IDs' positions — while the caller
/// goes on; ``finish()`` waits for them and gives the connection back. Dropped unfinished, it
/// waits for the statement's end (the rows are not wanted) before giving the connection back,
/// so the connection is idle when it is next used.
///
/// For example:
///
/// ```swift
/// guard let read = try PostgresPendingRead(pool: pool, query: query, placing: { found in place(found) }) else { … }   // nil: no spare connection
/// let rows = try read.finish()
/// ```
final class PostgresPendingRead: @unchecked Sendable {
    // @unchecked: made, finished and dropped by one caller (a batched fetch on its context's
    // queue), one after the other; the rows are gathered by `PostgresCollecting`, and placed
    // into `placed` on the connection's thread before the statement's end is announced.
    private let pool: PostgresSessionPool
    private let session: PostgresSession
    private var collecting: PostgresCollecting<StoreSnapshot>?
    private let placed: PlacedRows

    /// Starts `query` on a spare connection of `pool`, its snapshots given to `placing` once the
    /// last is read; `nil` when the pool has no connection to spare.
    ///
    /// - Throws: ``PostgresServerError`` or the pool's error when the statement cannot be sent.
    init?(pool: PostgresSessionPool, query: SnapshotQuery, placing: @escaping @Sendable ([StoreSnapshot]) -> [StoreSnapshot?]) throws {
        guard let session = try pool.checkOutSpare() else { return nil }
        let placed = PlacedRows()
        do {
            collecting = try session.startCollecting(query.sql, query.bindings, { try query.snapshot(from: $0) }) { box in
                placed.rows = placing(box.values)
                box.values = []
            }
        } catch {
            pool.checkIn(session)
            throw error
        }
        self.pool = pool
        self.session = session
        self.placed = placed
    }

    /// The rows the statement read, as `placing` placed them.
    ///
    /// - Throws: ``PostgresServerError``, or what reading a row threw.
    func finish() throws -> [StoreSnapshot?] {
        guard let collecting else { throw StoreError(.io, "the rows read ahead were already handed over") }
        self.collecting = nil
        defer { pool.checkIn(session) }
        _ = try collecting.finish()
        guard let rows = placed.rows else { throw StoreError(.io, "the rows read ahead were not placed") }
        return rows
    }

    deinit {
        guard let collecting else { return }
        // Unwanted rows: only the statement's end matters here, whatever it was (a failure
        // that broke the connection marks the session broken, and the pool then closes it).
        _ = try? collecting.finish()
        pool.checkIn(session)
    }
}

/// The rows of a ``PostgresPendingRead``, placed on the connection's thread.
private final class PlacedRows: @unchecked Sendable {
    // @unchecked: written once on the connection's event loop before the statement's end is
    // announced, read by the caller only after waiting for that end.
    var rows: [StoreSnapshot?]?
}
#endif
