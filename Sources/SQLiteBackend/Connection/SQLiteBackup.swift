import Foundation
internal import CSQLite

/// One run of SQLite's online backup API (`sqlite3_backup_init`, `_step`, `_finish`): the pages
/// of one connection's database copied into another's. Owns the backup handle and finishes it
/// in `deinit` when nobody did.
///
/// The copy is of what the source connection sees: started inside a read transaction on the
/// source, it is that transaction's snapshot, whatever other connections commit meanwhile (in
/// WAL mode they commit without waiting for it).
///
/// For example:
///
/// ```swift
/// let backup = try SQLiteBackup(from: reader, to: copy)
/// while try !backup.step(pages: 1024) {}
/// try backup.finish()
/// ```
final class SQLiteBackup {
    private let handle: OpaquePointer
    /// Both connections live at least as long as the backup handle that uses them.
    private let source: SQLiteConnection
    private let destination: SQLiteConnection
    private var finished = false

    init(from source: SQLiteConnection, to destination: SQLiteConnection) throws {
        guard let handle = sqlite3_backup_init(destination.handle, "main", source.handle, "main") else {
            throw SQLiteError(code: sqlite3_errcode(destination.handle), connection: destination.handle)
        }
        self.handle = handle
        self.source = source
        self.destination = destination
    }

    deinit {
        if !finished { sqlite3_backup_finish(handle) }
    }

    /// Copies up to `pages` more pages (all that are left for a negative number).
    ///
    /// - Returns: whether the copy is complete.
    /// - Throws: ``SQLiteError`` for a failed step (the destination is then left to be removed),
    ///   and `SQLITE_BUSY` when a lock did not come free within `busyTimeout` seconds.
    func step(pages: Int32, busyTimeout: Double) throws -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int64(max(0, busyTimeout) * 1000))
        while true {
            let code = sqlite3_backup_step(handle, pages)
            switch code & 0xFF {
            case SQLITE_DONE: return true
            case SQLITE_OK: return false
            case SQLITE_BUSY where ContinuousClock.now < deadline, SQLITE_LOCKED where ContinuousClock.now < deadline:
                sqlite3_sleep(10)
            default:
                throw SQLiteError(code: code, connection: destination.handle)
            }
        }
    }

    /// Pages still to copy, as of the last step.
    var remainingPages: Int { Int(sqlite3_backup_remaining(handle)) }
    /// Pages of the source, as of the last step.
    var pageCount: Int { Int(sqlite3_backup_pagecount(handle)) }

    /// Releases the backup; throws what the copy's last step failed with, if anything.
    func finish() throws {
        finished = true
        let code = sqlite3_backup_finish(handle)
        guard code == SQLITE_OK else { throw SQLiteError(code: code, connection: destination.handle) }
    }
}
