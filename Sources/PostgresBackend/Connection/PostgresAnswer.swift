#if Postgres  // the PostgreSQL store is built only with the Postgres package trait (Package.swift)
import Foundation

/// The answer to one request sent on a connection, waited for by the caller's thread with an
/// eye on the connection: postgres-nio completes a request's future when the server answers or
/// when the connection fails *while the request is queued on it*, but a request written after the
/// connection closed is dropped and its future never completes. So the waiter also wakes every
/// ``pollInterval`` and gives up once the connection has been closed for ``closedGrace``
/// without an answer — a statement never waits for a connection that is gone.
///
/// For example:
///
/// ```swift
/// let answer = PostgresAnswer<Int>()
/// future.whenComplete { answer.complete($0) }
/// let rows = try answer.wait(whileOpen: { !connection.isClosed })
/// ```
final class PostgresAnswer<T>: @unchecked Sendable {
    // @unchecked: `result` is only touched while `condition` is locked.
    private let condition = NSCondition()
    private var result: Result<T, any Error>?

    static var pollInterval: TimeInterval { 0.05 }
    static var closedGrace: TimeInterval { 0.25 }

    func complete(_ result: Result<T, any Error>) {
        condition.lock()
        if self.result == nil { self.result = result }
        condition.broadcast()
        condition.unlock()
    }

    /// The answer, or a lost-connection error once `isOpen` has said false for ``closedGrace``
    /// with no answer.
    func wait(whileOpen isOpen: () -> Bool) throws -> T {
        condition.lock()
        defer { condition.unlock() }
        var closedSince: Date?
        while true {
            if let result { return try result.get() }
            if condition.wait(until: Date(timeIntervalSinceNow: Self.pollInterval)) { continue }
            guard !isOpen() else {
                closedSince = nil
                continue
            }
            let now = Date()
            if let closedSince, now.timeIntervalSince(closedSince) >= Self.closedGrace {
                throw PostgresServerError("the connection to the server was closed before it answered", isConnectionLost: true)
            }
            closedSince = closedSince ?? now
        }
    }
}
#endif
