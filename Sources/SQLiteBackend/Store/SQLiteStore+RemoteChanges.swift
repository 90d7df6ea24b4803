import Foundation
import StoreCore

extension SQLiteStore: ChangeObservableStore {
    /// A probe of `PRAGMA data_version` on a read-only connection of its own, which changes
    /// whenever any other connection — in this process or another — commits to the database.
    public func makeChangeProbe() throws -> @Sendable () throws -> String {
        guard !pool.isInMemory else {
            throw StoreError(.invalidOption, url: url, "a private in-memory database has no file for others to change; remote change notifications need a store file")
        }
        let probe = try sqlite { try DataVersionProbe(path: pool.path) }
        return { try probe.stamp() }
    }
}

/// One read-only connection asking `PRAGMA data_version`.
final class DataVersionProbe: @unchecked Sendable {
    // @unchecked: the connection is only used while `lock` is held.
    private let connection: SQLiteConnection
    private let lock = NSLock()

    init(path: String) throws {
        connection = try SQLiteConnection(path: path, mode: .readOnly, log: .disabled)
        connection.setBusyTimeout(1)
    }

    func stamp() throws -> String {
        try lock.withLock {
            guard case .integer(let version)? = try connection.scalar("PRAGMA data_version") else { return "?" }
            return String(version)
        }
    }
}
