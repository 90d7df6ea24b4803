import Foundation

/// A connection held for a query generation: one transaction kept open so every read through it
/// sees the state of one moment, used by one caller at a time, and ended when released or when
/// its lifetime passes — whichever comes first (an open transaction holds back the database's
/// cleanup: SQLite's WAL checkpoints, PostgreSQL's VACUUM).
///
/// For example:
///
/// ```swift
/// let session = PinnedSession(connection: reader, lifetime: 300) { try? $0.execute("COMMIT") }
/// let count = try session.use { try $0.scalar("SELECT COUNT(*) FROM ZPOST") }
/// ```
package final class PinnedSession<Connection>: @unchecked Sendable {
    // @unchecked: `connection` and `isOpen` are only touched under `lock`.
    /// Thrown by ``use(_:)`` once the session ended.
    package struct Expired: Error {
        package let lifetime: Double
    }

    private let connection: Connection
    private let lock = NSLock()
    private var isOpen = true
    private let finish: (Connection) -> Void
    package let lifetime: Double

    /// Holds `connection` (its transaction already begun) for at most `lifetime` seconds;
    /// `finish` ends the transaction (and closes the connection, if it is the session's own).
    package init(connection: Connection, lifetime: Double, finish: @escaping (Connection) -> Void) {
        self.connection = connection
        self.lifetime = lifetime
        self.finish = finish
        DispatchQueue.global().asyncAfter(deadline: .now() + lifetime) { [weak self] in self?.end() }
    }

    /// Runs `body` on the pinned connection, one caller at a time.
    ///
    /// - Throws: ``Expired`` once the session ended; what `body` throws.
    package func use<T>(_ body: (Connection) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        guard isOpen else { throw Expired(lifetime: lifetime) }
        return try body(connection)
    }

    /// Ends the transaction; later uses throw ``Expired``.
    package func end() {
        lock.lock()
        defer { lock.unlock() }
        guard isOpen else { return }
        isOpen = false
        finish(connection)
    }

    deinit { end() }
}
