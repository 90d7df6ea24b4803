#if Postgres  // the PostgreSQL store is built only with the Postgres package trait (Package.swift)
import Foundation
import PostgresNIO
import StoreCore

/// Up to `poolSize` connections to the server, opened when first needed and handed to one caller
/// at a time; a caller that finds them all busy waits for one (at most the description's
/// timeout). Every connection runs with the store's schema as its `search_path`.
///
/// Callers wait for the server on their own thread, so the pool refuses to be used from one of
/// SwiftNIO's event-loop threads (waiting there would stall every connection on that loop).
///
/// For example:
///
/// ```swift
/// let pool = try ServerConnectionPool(options: options, log: .fromEnvironment)
/// let count = try pool.withConnection { try $0.scalar("SELECT COUNT(*) FROM ZPOST") }
/// ```
final class ServerConnectionPool: @unchecked Sendable {
    // @unchecked: `idle`, `open` and `isClosed` are only touched while `condition` is locked.
    let options: PostgresStoreOptions
    let log: StatementLog
    private let configuration: PostgresConnection.Configuration
    private let condition = NSCondition()
    private var idle: [ServerConnection] = []
    private var open = 0
    private var isClosed = false
    private var nextID = 0

    init(options: PostgresStoreOptions, log: StatementLog) throws {
        self.options = options
        self.log = log
        configuration = try options.connectionConfiguration()
    }

    /// Runs `body` with a connection of the pool, returning it afterwards (a broken one is closed).
    func withConnection<T>(_ body: (ServerConnection) throws -> T) throws -> T {
        let connection = try checkOut()
        defer { checkIn(connection) }
        return try body(connection)
    }

    /// A new connection outside the pool (for `LISTEN`), with the store's search path.
    func makeDedicatedConnection() throws -> ServerConnection {
        try connect()
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

    private func checkOut() throws -> ServerConnection {
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
                condition.unlock()
                return connection
            }
            if open < options.poolSize {
                open += 1
                condition.unlock()
                do {
                    return try connect()
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

    private func checkIn(_ connection: ServerConnection) {
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

    private func connect() throws -> ServerConnection {
        let id = condition.withLock { nextID += 1; return nextID }
        let connection: PostgresConnection
        do {
            connection = try PostgresConnection.connect(
                on: PostgresConnection.defaultEventLoopGroup.next(), configuration: configuration, id: id, logger: log.logger
            ).wait()
        } catch {
            throw StoreError(.io, "cannot connect to PostgreSQL at \(options.location): \(String(reflecting: error))")
        }
        let session = ServerConnection(connection, log: log)
        do {
            try session.run("SET search_path TO \(options.schema)")
        } catch {
            session.close()
            throw StoreError(.io, "cannot use schema \(options.schema) on PostgreSQL at \(options.location): \(error)", underlying: error)
        }
        return session
    }
}
#endif
