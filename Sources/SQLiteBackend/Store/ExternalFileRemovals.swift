import Foundation
import StoreSQL
#if !STOWAGE_SANITIZER_LOCKS  // the ThreadSanitizer build (.ci/run) uses StoreCore's sanitizer-visible Mutex
import Synchronization
#endif
import StoreCore

/// Removals of external binary data files, put off while a backup copies the folder they are in.
///
/// A save that replaces or deletes an externally stored value removes the value's file once it
/// has committed. A backup copies the database from one read snapshot and then the files; a file
/// that snapshot still refers to must not go in between. So every SQLite store in this process
/// hands its removals here, and while a backup of a folder runs they wait, and are made when the
/// last backup of the folder ends. (Another process's saves do not know of the backup; see
/// ``SQLiteStoreFiles``.)
///
/// For example:
///
/// ```swift
/// try ExternalFileRemovals.whileCopying(folder) {
///     try copyDatabase(); try copyFiles()      // no file of `folder` is removed meanwhile
/// }
/// ExternalFileRemovals.remove([obsoleteFile])  // now, or when the backups end
/// ```
enum ExternalFileRemovals {
    private struct Folder {
        var backups = 0
        var deferred: [URL] = []
    }

    private static let folders = Mutex<[String: Folder]>([:])

    /// Removes `files`, or keeps each until the backups of its folder have ended.
    static func remove(_ files: [URL]) {
        let now = folders.withLock { folders -> [URL] in
            guard !folders.isEmpty else { return files }
            var now: [URL] = []
            for file in files {
                let key = file.deletingLastPathComponent().standardizedFileURL.path
                if folders[key] != nil {
                    folders[key]?.deferred.append(file)
                } else {
                    now.append(file)
                }
            }
            return now
        }
        SQLWriteFiles.remove(now)
    }

    /// Runs `body` with every removal of a file in `folder` put off until it returns (and until
    /// any other backup of the folder has ended too).
    static func whileCopying<T>(_ folder: URL, _ body: () throws -> T) throws -> T {
        let key = folder.standardizedFileURL.path
        folders.withLock { $0[key, default: Folder()].backups += 1 }
        defer {
            let due = folders.withLock { folders -> [URL] in
                guard var entry = folders[key] else { return [] }
                entry.backups -= 1
                guard entry.backups == 0 else {
                    folders[key] = entry
                    return []
                }
                folders[key] = nil
                return entry.deferred
            }
            SQLWriteFiles.remove(due)
        }
        return try body()
    }
}
