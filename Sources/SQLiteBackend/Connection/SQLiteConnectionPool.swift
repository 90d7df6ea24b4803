import Foundation

/// One writer connection and up to `maximumReaders` reader connections to one database file.
///
/// In WAL mode readers see the last committed state while the writer works, so fetches on
/// background contexts never wait for a long save. Each call borrows a connection for the
/// duration of its closure; a connection is never used by two threads at once.
/// A private in-memory database (`/dev/null`) has one connection that serves both roles.
///
/// For example:
///
/// ```swift
/// let pool = try SQLiteConnectionPool(path: path, configuration: configuration)
/// let count = try pool.read { try $0.scalar("SELECT COUNT(*) FROM ZPOST") }
/// try pool.write { connection in try connection.transaction { … } }
/// ```
final class SQLiteConnectionPool: @unchecked Sendable {
    // @unchecked: the writer is only touched under `writerLock`; idle readers only under
    // `readersLock`; a borrowed reader belongs to the one caller that took it.

    struct Configuration: Sendable {
        var readOnly = false
        var maximumReaders = 4
        var busyTimeout: Double = 240
        /// `PRAGMA name = value` lines run on every connection, in order.
        var pragmas: [(name: String, value: String)] = []
        var log: SQLiteLog = .disabled
        /// Readers held for query generations, at most.
        var maximumPinnedReaders = 4
        /// Seconds a pinned reader keeps its transaction.
        var pinnedReaderLifetime: Double = 300
    }

    let path: String
    let isInMemory: Bool
    private let configuration: Configuration
    private let writer: SQLiteConnection
    private let writerLock = NSRecursiveLock()
    private let readersLock = NSLock()
    private var idleReaders: [SQLiteConnection] = []
    private let readerSlots: DispatchSemaphore
    private var pinnedCount = 0
    /// The pinned reader the current thread's reads use, while a query generation reads.
    @TaskLocal static var pinned: SQLitePinnedReader?

    init(path: String, configuration: Configuration) throws {
        self.path = path
        self.isInMemory = path == ":memory:"
        self.configuration = configuration
        writer = try SQLiteConnection(path: path, mode: configuration.readOnly ? .readOnly : .readWrite, log: configuration.log)
        readerSlots = DispatchSemaphore(value: max(1, configuration.maximumReaders))
        try prepare(writer)
    }

    /// Whether the store's options set `auto_vacuum` themselves; a new store otherwise gets Core
    /// Data's incremental mode.
    var setsAutoVacuum: Bool { configuration.pragmas.contains { $0.name.lowercased() == "auto_vacuum" } }

    /// Every pragma but `journal_mode`, which changes the file itself: it waits for
    /// ``setJournalMode()``, once the store has accepted the file.
    private func prepare(_ connection: SQLiteConnection) throws {
        connection.setBusyTimeout(configuration.busyTimeout)
        for pragma in configuration.pragmas where pragma.name.lowercased() != "journal_mode" {
            try connection.execute("PRAGMA \(pragma.name) = \(pragma.value)")
        }
    }

    /// Sets the configured journal mode (WAL by default) on the writer. A store calls it only
    /// after its checks accepted the file, so a refused open leaves the file as it was.
    func setJournalMode() throws {
        try write { writer in
            for pragma in configuration.pragmas where pragma.name.lowercased() == "journal_mode" {
                try writer.execute("PRAGMA \(pragma.name) = \(pragma.value)")
            }
        }
    }

    /// Runs `body` on the writer connection, one caller at a time (re-entrant on one thread).
    func write<T>(_ body: (SQLiteConnection) throws -> T) rethrows -> T {
        writerLock.lock()
        defer { writerLock.unlock() }
        return try body(writer)
    }

    /// Runs `body` on a reader connection inside one read transaction, so every statement it
    /// issues sees the same committed state.
    func read<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        if let pinned = Self.pinned, pinned.pool === self { return try pinned.use(body) }
        if isInMemory { return try write { try body($0) } }
        readerSlots.wait()
        defer { readerSlots.signal() }
        let reader = try takeReader()
        defer { giveBack(reader) }
        try reader.execute("BEGIN DEFERRED")
        defer { if reader.isInTransaction { try? reader.execute("COMMIT") } }
        return try body(reader)
    }

    /// A reader of its own holding a read transaction open, so that every read through it sees
    /// the state committed now (a query generation), until released or past its lifetime.
    ///
    /// - Throws: ``SQLitePinnedReader/Refusal`` when the pool holds as many as it allows, or is in memory.
    func pinReader() throws -> SQLitePinnedReader {
        guard !isInMemory else { throw SQLitePinnedReader.Refusal.inMemory }
        let allowed = readersLock.withLock { () -> Bool in
            guard pinnedCount < configuration.maximumPinnedReaders else { return false }
            pinnedCount += 1
            return true
        }
        guard allowed else { throw SQLitePinnedReader.Refusal.limit(configuration.maximumPinnedReaders) }
        do {
            let reader = try takeReader()
            try reader.execute("BEGIN DEFERRED")
            _ = try reader.scalar("SELECT COUNT(*) FROM sqlite_master", [])   // the read snapshot starts here
            return SQLitePinnedReader(pool: self, connection: reader, lifetime: configuration.pinnedReaderLifetime)
        } catch {
            unpin()
            throw error
        }
    }

    func unpin() {
        readersLock.withLock { pinnedCount -= 1 }
    }

    private func takeReader() throws -> SQLiteConnection {
        readersLock.lock()
        let idle = idleReaders.popLast()
        readersLock.unlock()
        if let idle { return idle }
        let reader = try SQLiteConnection(path: path, mode: .readOnly, log: configuration.log)
        reader.setBusyTimeout(configuration.busyTimeout)
        for pragma in configuration.pragmas where pragma.name.lowercased() != "journal_mode" {
            try reader.execute("PRAGMA \(pragma.name) = \(pragma.value)")
        }
        return reader
    }

    private func giveBack(_ reader: SQLiteConnection) {
        readersLock.lock()
        idleReaders.append(reader)
        readersLock.unlock()
    }

    /// The log every connection of the pool writes to.
    var log: SQLiteLog { configuration.log }

    /// Closes the idle readers; the writer closes when the pool is released.
    func close() {
        readersLock.lock()
        idleReaders.removeAll()
        readersLock.unlock()
    }
}
