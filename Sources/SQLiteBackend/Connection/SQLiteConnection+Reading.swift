import Foundation
import StoreCore

extension SQLiteConnection {
    /// Runs `body` on a read-only connection to the database at `url` — for reading a store
    /// without opening it (its metadata, its layout) — and reports SQLite's failures as
    /// ``/StoreCore/StoreError``s naming the file.
    ///
    /// For example:
    ///
    /// ```swift
    /// let tables = try SQLiteConnection.reading(url) { try $0.scalar("SELECT COUNT(*) FROM sqlite_master") }
    /// ```
    ///
    /// A database with no `-wal` or `-journal` beside it — closed everywhere, nothing to replay —
    /// is read as immutable, so that looking at it creates no file (a read-only connection to a
    /// WAL database would leave an empty `-wal` and a `-shm` behind).
    static func reading<T>(_ url: URL, _ body: (SQLiteConnection) throws -> T) throws -> T {
        let connection: SQLiteConnection
        let fileManager = FileManager.default
        let isClosed = !fileManager.fileExists(atPath: url.path + "-wal") && !fileManager.fileExists(atPath: url.path + "-journal")
        do {
            let path = isClosed && fileManager.fileExists(atPath: url.path) ? immutableURI(url.path) : url.path
            connection = try SQLiteConnection(path: path, mode: .readOnly, log: .disabled)
            connection.setBusyTimeout(5)
        } catch {
            throw StoreError(.io, url: url, "cannot open the SQLite database: \(error)", underlying: error)
        }
        do {
            return try body(connection)
        } catch let error as SQLiteError {
            throw StoreError(error.isCorruption ? .corrupt : .io, url: url, "cannot read the SQLite database: \(error)", underlying: error)
        }
    }
}
