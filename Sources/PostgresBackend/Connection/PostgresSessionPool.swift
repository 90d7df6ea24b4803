#if Postgres  // the PostgreSQL store is built only with the Postgres package trait (Package.swift)
import Foundation
import PostgresNIO
import StoreCore

/// Up to `poolSize` connections to the server, opened when first needed and handed to one caller
/// at a time; a caller that finds them all busy waits for one (at most the description's
/// timeout). Every connection runs with the store's schema as its `search_path` and
/// `stowage <schema>` as its `application_name` (what `pg_stat_activity` shows).
///
/// A connection the server ended (a restart, `pg_terminate_backend`, an idle timeout) is never
/// handed out again: an idle one found closed is dropped, and one that failed with a lost
/// connection is closed when it comes back. Connecting is retried with backoff until the
/// connect timeout while the server cannot be reached or is starting up, so a call made during
/// a restart waits for the server rather than failing at once.
///
/// Callers wait for the server on their own thread, so the pool refuses to be used from one of
/// SwiftNIO's event-loop threads (waiting there would stall every connection on that loop).
///
/// For example:
///
/// ```swift
/// let pool = try PostgresSessionPool(options: options, log: .fromEnvironment)
/// let count = try pool.withConnection { try $0.scalar("SELECT COUNT(*) FROM ZPOST") }
/// ```
final class PostgresSessionPool: @unchecked Sendable {
    // @unchecked: `idle`, `open` and `isClosed` are only touched while `condition` is locked.
    let options: PostgresStoreOptions
    let log: PostgresStatementLog
    private let configuration: PostgresConnection.Configuration
    private let condition = NSCondition()
    private var idle: [PostgresSession] = []
    private var open = 0
    private var isClosed = false
    private var nextID = 0

    init(options: PostgresStoreOptions, log: PostgresStatementLog) throws {
        self.options = options
        self.log = log
        configuration = try options.connectionConfiguration()
    }

    /// Runs `body` with a connection of the pool, returning it afterwards (a broken one is closed).
    func withConnection<T>(_ body: (PostgresSession) throws -> T) throws -> T {
        let connection = try checkOut()
        defer { checkIn(connection) }
        return try body(connection)
    }

    /// A new connection outside the pool (for `LISTEN` or a pinned query generation), with the
    /// store's search path; `role` is added to its `application_name`.
    func makeDedicatedConnection(role: String) throws -> PostgresSession {
        try connect(until: Date(timeIntervalSinceNow: options.connectTimeout), role: role)
    }

    func close() {
        condition.lock()
        isClosed = true
        let connections = idle
        idle = []
        condition.broadcast()
        condition.unlock()
        for connection in connections { connection.close() }
    }

    private func checkOut() throws -> PostgresSession {
        if MultiThreadedEventLoopGroup.currentEventLoop != nil {
            throw StoreError(.invalidOption, "the PostgreSQL store was called on a SwiftNIO event-loop thread, where it cannot wait for the server; call it from a context's queue or a task")
        }
        condition.lock()
        let deadline = Date(timeIntervalSinceNow: options.connectTimeout)
        while true {
            if isClosed {
                condition.unlock()
                throw StoreError(.io, "the PostgreSQL store was removed from its coordinator")
            }
            if let connection = idle.popLast() {
                if connection.connection.isClosed {
                    // The server ended it while it sat idle.
                    open -= 1
                    continue
                }
                condition.unlock()
                return connection
            }
            if open < options.poolSize {
                open += 1
                condition.unlock()
                do {
                    return try connect(until: deadline)
                } catch {
                    condition.lock()
                    open -= 1
                    condition.signal()
                    condition.unlock()
                    throw error
                }
            }
            if !condition.wait(until: deadline) {
                condition.unlock()
                throw StoreError(.io, "all \(options.poolSize) connections to PostgreSQL stayed busy for \(Int(options.connectTimeout)) s")
            }
        }
    }

    /// A connection for a read that holds it while its caller goes on (``PostgresPendingRead``),
    /// taken only when another stays for everyone else (idle, or within the pool's size), so
    /// that holding it never makes another call wait; `nil` otherwise. Give it back with ``checkIn(_:)``.
    func checkOutSpare() throws -> PostgresSession? {
        condition.lock()
        while let connection = idle.last, connection.connection.isClosed {
            idle.removeLast()
            open -= 1
        }
        let spare = idle.count + (options.poolSize - open)
        guard !isClosed, spare >= 2, MultiThreadedEventLoopGroup.currentEventLoop == nil else {
            condition.unlock()
            return nil
        }
        condition.unlock()
        return try checkOut()
    }

    func checkIn(_ connection: PostgresSession) {
        condition.lock()
        if connection.isBroken || isClosed {
            open -= 1
            condition.signal()
            condition.unlock()
            connection.close()
            return
        }
        idle.append(connection)
        condition.signal()
        condition.unlock()
    }

    /// Connects, retrying with backoff (50 ms doubling to 1 s) while the server cannot be reached
    /// or says it is starting or shutting down, until `deadline`.
    private func connect(until deadline: Date, role: String? = nil) throws -> PostgresSession {
        var delay = 0.05
        while true {
            do {
                return try connect(role: role)
            } catch let failure as PostgresConnectFailure {
                guard failure.isRetryable, Date(timeIntervalSinceNow: delay) < deadline, !condition.withLock({ isClosed }) else {
                    throw StoreError(.serverUnavailable, "cannot connect to PostgreSQL at \(options.location): \(failure.description)", underlying: failure.error)
                }
                Thread.sleep(forTimeInterval: delay)
                delay = min(delay * 2, 1)
            }
        }
    }

    private func connect(role: String?) throws -> PostgresSession {
        let id = condition.withLock { nextID += 1; return nextID }
        let connection: PostgresConnection
        do {
            connection = try PostgresConnection.connect(
                on: PostgresConnection.defaultEventLoopGroup.next(), configuration: configuration, id: id, logger: log.logger
            ).wait()
        } catch {
            if let refusal = options.tlsRefusal(error) { throw refusal }   // not retried: it would fail the same way
            throw PostgresConnectFailure(error)
        }
        let session = PostgresSession(connection, log: log)
        let name = "stowage \(options.schema)" + (role.map { " \($0)" } ?? "")
        do {
            try session.run("SELECT set_config('search_path', $1, false), set_config('application_name', $2, false)", [.text(options.schema), .text(name)])
        } catch let failure as PostgresServerError where failure.isConnectionLost {
            session.close()
            throw PostgresConnectFailure(failure)
        } catch {
            session.close()
            throw StoreError(.io, "cannot use schema \(options.schema) on PostgreSQL at \(options.location): \(error)", underlying: error)
        }
        return session
    }
}

/// Why a connection could not be opened, and whether trying again may help: the server could not
/// be reached, or answered that it is starting up or shutting down (`57P03`), as opposed to
/// refusing the credentials or the database.
struct PostgresConnectFailure: Error, CustomStringConvertible {
    let error: any Error

    init(_ error: any Error) { self.error = error }

    var isRetryable: Bool {
        let server: PostgresServerError
        if let failure = error as? PostgresServerError {
            server = failure
        } else if let failure = error as? PSQLError {
            server = PostgresServerError(failure, sql: "")
        } else {
            return true   // the socket or TLS layer: nothing is listening yet
        }
        return server.isConnectionLost || server.sqlState == "57P03"
    }

    var description: String {
        if let failure = error as? PSQLError { return PostgresServerError(failure, sql: "").description }
        return String(reflecting: error)
    }
}
#endif
