import Foundation

/// The files a store at a URL may consist of: the file itself and what a SQLite store keeps
/// beside it (`-wal`, `-shm`, `-journal`, and the `.<name>_SUPPORT` folder of external data).
/// Copying, migrating and replacing stores move or remove them together.
///
/// For example:
///
/// ```swift
/// StoreFiles.files(of: URL(fileURLWithPath: "/data/Notes.sqlite"))
/// // Notes.sqlite, Notes.sqlite-wal, Notes.sqlite-shm, Notes.sqlite-journal, .Notes_SUPPORT
/// ```
package enum StoreFiles {
    package static func files(of url: URL) -> [URL] {
        [url] + sidecars(of: url)
    }

    /// Everything but the file itself.
    package static func sidecars(of url: URL) -> [URL] {
        ["-wal", "-shm", "-journal"].map { URL(fileURLWithPath: url.path + $0) }
            + [url.deletingLastPathComponent().appendingPathComponent(".\(url.deletingPathExtension().lastPathComponent)_SUPPORT")]
    }

    /// Puts the store at `source` in the place of the store at `destination`, whose store must be
    /// closed with nothing left in a write-ahead log: the destination's journal files are removed
    /// first (a stale `-wal` must never meet the new file), then the new file is renamed over the
    /// old one, which is atomic — a crash leaves the old store or the new one — and the new
    /// store's journal files and external-data folder follow (a crash between the rename and the
    /// folder's move leaves the new store without its externally stored values).
    package static func replace(_ destination: URL, withStoreAt source: URL) throws {
        let manager = FileManager.default
        let (oldFiles, newFiles) = (sidecars(of: destination), sidecars(of: source))
        for sidecar in oldFiles.dropLast() where manager.fileExists(atPath: sidecar.path) {
            try manager.removeItem(at: sidecar)
        }
        guard rename(source.path, destination.path) == 0 else {
            throw StoreError(.io, url: destination, "the migrated store could not replace the old one: \(String(cString: strerror(errno)))")
        }
        if let oldFolder = oldFiles.last, manager.fileExists(atPath: oldFolder.path) { try manager.removeItem(at: oldFolder) }
        for (from, to) in zip(newFiles, oldFiles) where manager.fileExists(atPath: from.path) {
            try manager.moveItem(at: from, to: to)
        }
        DurableFile.syncDirectory(of: destination)
    }

    /// Removes the store at `url` and everything beside it that belongs to it: the journals first
    /// (a stale `-wal` must never meet a new database made at this URL), then the file, the
    /// `-shm` and the external-data folder. What is already missing is skipped.
    ///
    /// - Throws: ``StoreError`` `io` naming the first file that could not be removed.
    package static func remove(_ url: URL) throws {
        let manager = FileManager.default
        let sidecars = sidecars(of: url)   // -wal, -shm, -journal, the folder
        for file in [sidecars[0], sidecars[2], url, sidecars[1], sidecars[3]] {
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: file.path, isDirectory: &isDirectory) else { continue }
            do {
                try manager.removeItem(at: file)
            } catch {
                throw StoreError(.io, url: file, "cannot remove the store's file: \(error.localizedDescription)", underlying: error)
            }
        }
        DurableFile.syncDirectory(of: url)
    }
}
