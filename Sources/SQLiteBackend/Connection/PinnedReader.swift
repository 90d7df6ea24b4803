import Foundation

/// A reader connection holding one read transaction open for a query generation: in WAL mode
/// every statement on it sees the database as it was when the transaction began. It ends the
/// transaction when released, or when its lifetime passes (a WAL checkpoint cannot move past an
/// open reader, so the WAL would otherwise grow for as long as the generation is held).
///
/// For example:
///
/// ```swift
/// let pinned = try pool.pinReader()
/// let count = try ConnectionPool.$pinned.withValue(pinned) { try pool.read { try $0.scalar("SELECT COUNT(*) FROM ZPOST") } }
/// ```
final class PinnedReader: @unchecked Sendable {
    // @unchecked: `connection` and `isOpen` are only touched under `lock`.
    enum Refusal: Error {
        case inMemory
        case limit(Int)
        case expired(Double)
    }

    let pool: ConnectionPool
    private let connection: SQLiteConnection
    private let lock = NSLock()
    private var isOpen = true
    private let lifetime: Double

    init(pool: ConnectionPool, connection: SQLiteConnection, lifetime: Double) {
        self.pool = pool
        self.connection = connection
        self.lifetime = lifetime
        DispatchQueue.global().asyncAfter(deadline: .now() + lifetime) { [weak self] in self?.end() }
    }

    /// Runs `body` on the pinned connection, one caller at a time.
    func use<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        guard isOpen else { throw Refusal.expired(lifetime) }
        return try body(connection)
    }

    /// Ends the read transaction (the generation's lifetime passed, or it was released).
    func end() {
        lock.lock()
        defer { lock.unlock() }
        guard isOpen else { return }
        isOpen = false
        if connection.isInTransaction { try? connection.execute("COMMIT") }
    }

    deinit {
        end()
        pool.unpin()
    }
}
