#if Postgres  // the PostgreSQL store is built only with the Postgres package trait (Package.swift)
import Foundation
import Logging
import PostgresNIO
import StoreCore
import StoreSQL

/// One connection to the PostgreSQL server, used synchronously by one caller at a time (the
/// pool hands it out): each call sends a statement with its parameters bound and waits for the
/// answer on the caller's thread — never an event-loop thread, which `PostgresSessionPool` checks.
///
/// For example:
///
/// ```swift
/// let rows = try connection.query("SELECT Z_PK, Z_ENT FROM ZPOST WHERE ZTITLE = $1", [.text("Hello")])
/// let changed = try connection.run("UPDATE ZPOST SET Z_OPT = Z_OPT + 1 WHERE Z_PK = $1", [.integer(7)])
/// ```
package final class PostgresSession: SQLConnection, @unchecked Sendable {
    // @unchecked: the pool hands a connection to one caller at a time; postgres-nio's connection
    // itself is thread-safe.
    let connection: PostgresConnection
    let log: PostgresStatementLog
    /// Whether a statement failed in a way that leaves the session unusable (a lost connection).
    private(set) var isBroken = false
    /// The ID of the transaction in progress (`txid_current()`), once a statement read it.
    var transactionID: Int64?

    init(_ connection: PostgresConnection, log: PostgresStatementLog) {
        self.connection = connection
        self.log = log
    }

    /// Runs a statement and returns its rows.
    @discardableResult
    func query(_ sql: String, _ bindings: [SQLValue] = []) throws -> [PostgresSessionRow] {
        try send(sql, bindings) { try answer(connection.query($0, logger: log.logger)).rows.map { PostgresSessionRow($0.makeRandomAccess()) } }
    }

    /// Runs a statement and returns what `transform` makes of each row, reading rows as they
    /// arrive (no row is kept after its turn: a million-row result costs what the values cost).
    /// `transform` runs on the connection's event loop while this thread waits. Specialized for
    /// snapshots (every fetch), as SQLite's `collect` is.
    @_specialize(where T == StoreSnapshot)
    package func collect<T>(_ sql: String, _ bindings: [SQLValue] = [], _ transform: @escaping @Sendable (PostgresSessionRow) throws -> T?) throws -> [T] {
        try startCollecting(sql, bindings, transform).finish()
    }

    /// Sends a statement whose rows `transform` reads as they arrive, as ``collect(_:_:_:)``
    /// does, but returns at once: ``PostgresCollecting/finish()`` waits for the rows. Nothing
    /// else may be sent on the session until then.
    func startCollecting<T>(
        _ sql: String, _ bindings: [SQLValue] = [], _ transform: @escaping @Sendable (PostgresSessionRow) throws -> T?
    ) throws -> PostgresCollecting<T> {
        let box = CollectedValues<T>()
        let future = try send(sql, bindings) { query in
            connection.query(query, logger: log.logger) { row in
                guard box.failure == nil else { return }
                do {
                    if let value = try transform(PostgresSessionRow(row.makeRandomAccess())) { box.values.append(value) }
                } catch {
                    box.failure = error
                }
            }
        }
        let answer = PostgresAnswer<Void>()
        future.whenComplete { answer.complete($0.map { _ in () }) }
        return PostgresCollecting(session: self, sql: sql, box: box, answer: answer)
    }

    /// Runs a statement and returns how many rows it changed.
    @discardableResult
    package func run(_ sql: String, _ bindings: [SQLValue] = []) throws -> Int {
        try send(sql, bindings) { try answer(connection.query($0, logger: log.logger)).metadata.rows ?? 0 }
    }

    /// Logs the statement, binds its values and runs `body` with it, turning postgres-nio's
    /// errors into ``PostgresServerError`` (and marking the session broken when the connection is lost).
    private func send<T>(_ sql: String, _ bindings: [SQLValue], _ body: (PostgresQuery) throws -> T) throws -> T {
        log.statement(sql, bindings)
        guard !connection.isClosed else {
            isBroken = true
            throw PostgresServerError("the connection to the server is closed", sql: sql, isConnectionLost: true)
        }
        return try reportingFailures(of: sql) { try body(PostgresQuery(unsafeSQL: sql, binds: Self.binds(bindings))) }
    }

    /// Runs `body`, turning postgres-nio's errors into ``PostgresServerError`` (and marking the
    /// session broken when the connection is lost).
    func reportingFailures<T>(of sql: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as PSQLError {
            let failure = PostgresServerError(error, sql: sql)
            if failure.isConnectionLost || connection.isClosed { isBroken = true }
            throw failure
        } catch let failure as PostgresServerError {
            if failure.isConnectionLost || connection.isClosed { isBroken = true }
            throw failure
        }
    }

    /// Waits for a request's answer, giving up once the connection is closed (``PostgresAnswer``).
    func answer<T>(_ future: EventLoopFuture<T>) throws -> T {
        let answer = PostgresAnswer<T>()
        future.whenComplete { answer.complete($0) }
        return try answer.wait { !connection.isClosed }
    }

    /// The first column of the first row, or `nil` when there is no row.
    package func scalar(_ sql: String, _ bindings: [SQLValue] = []) throws -> SQLValue? {
        try query(sql, bindings).first?.value(at: 0)
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    ///
    /// With `resolveLostCommit`, the transaction's ID is known before `COMMIT` (read then, unless
    /// a statement of `body` already recorded it in ``transactionID``); if the connection is lost
    /// after `COMMIT` was sent, `resolveLostCommit` is given that ID and the error, and must find
    /// out from the server whether the transaction committed: it returns if it did (the
    /// transaction's result is returned) and throws if it did not or cannot tell.
    func transaction<T>(
        _ isolation: String = "READ COMMITTED", resolveLostCommit: ((Int64, PostgresServerError) throws -> Void)? = nil,
        _ body: () throws -> T
    ) throws -> T {
        try run("BEGIN ISOLATION LEVEL \(isolation)")
        transactionID = nil
        let result: T
        do {
            result = try body()
            if resolveLostCommit != nil, transactionID == nil, case .integer(let id)? = try scalar("SELECT txid_current()") { transactionID = id }
        } catch {
            if !isBroken { rollBack() }
            throw error
        }
        do {
            try run("COMMIT")
        } catch let failure as PostgresServerError where failure.isConnectionLost {
            guard let resolveLostCommit, let transactionID else { throw failure }
            try resolveLostCommit(transactionID, failure)
        }
        return result
    }

    /// Rolls back after the transaction's body failed; a connection that cannot roll back is
    /// marked broken (the pool closes it, which rolls back on the server).
    private func rollBack() {
        do {
            try run("ROLLBACK")
        } catch {
            isBroken = true
        }
    }

    /// Closes the connection (waiting for it unless called on an event-loop thread).
    /// Marks the session unusable (the pool closes it instead of handing it out again).
    func markBroken() { isBroken = true }

    func close() {
        guard !connection.isClosed else { return }
        // Closing never fails in a way the caller could act on: the channel is gone either way.
        // Off an event loop, wait (boundedly) until it is, so the server sees the session end.
        let closing: EventLoopFuture<Void> = connection.close()
        guard MultiThreadedEventLoopGroup.currentEventLoop == nil else {
            // On an event loop nothing may wait: the connection is kept until it has closed
            // (postgres-nio traps on a connection freed while open, which a session let go here
            // — the last reference to a store dropped in work a loop runs — would otherwise be).
            let connection = self.connection
            closing.whenComplete { _ in withExtendedLifetime(connection) {} }
            return
        }
        let answer = PostgresAnswer<Void>()
        closing.whenComplete { answer.complete($0) }
        _ = try? answer.wait { !connection.isClosed }
    }

    deinit { close() }

    /// Values bound with the types their SQL values name: int8, float8, text, bytea.
    static func binds(_ values: [SQLValue]) -> PostgresBindings {
        var binds = PostgresBindings(capacity: values.count)
        for value in values {
            switch value {
            case .null: binds.appendNull()
            case .integer(let number): binds.append(number)
            case .real(let number): binds.append(number)
            case .text(let text): binds.append(text)
            case .blob(let data): binds.append(ByteBuffer(bytes: data))
            }
        }
        return binds
    }
}

/// A statement sent by ``PostgresSession/startCollecting(_:_:_:)`` whose rows are being read.
struct PostgresCollecting<T> {
    let session: PostgresSession
    let sql: String
    let box: CollectedValues<T>
    let answer: PostgresAnswer<Void>

    /// Waits for the statement's end and returns what its rows became.
    ///
    /// - Throws: ``PostgresServerError``, or what the transform threw.
    func finish() throws -> [T] {
        try session.reportingFailures(of: sql) { try answer.wait { !session.connection.isClosed } }
        if let failure = box.failure { throw failure }
        return box.values
    }
}

/// The values `collect` gathers.
final class CollectedValues<T>: @unchecked Sendable {
    // @unchecked: appended to only by the connection's event loop while the query runs, and
    // read by the waiting thread only after the query's future completed.
    var values: [T] = []
    /// What `transform` threw; later rows are passed over.
    var failure: (any Error)?
}

#endif
