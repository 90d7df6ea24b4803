import Foundation
import StoreCore
import StoreSQL

/// Replacing and destroying SQLite store files: the database, its `-wal`, `-shm` and `-journal`
/// files and the `.<name>_SUPPORT` folder of external binary data, together.
///
/// **Replacing** copies the source with SQLite's online backup API (``SQLiteBackup``), never as
/// files: a live WAL database's files copied one by one can mix two states. A read-only
/// connection opens a read transaction on the source — its snapshot is the state the copy holds —
/// and the pages are copied into a new database beside the destination, ``pagesPerStep`` at a
/// time; in WAL mode other connections, in this process or another, go on saving meanwhile (in a
/// rollback-journal mode their commits wait for the copy). Then the source's support folder is
/// copied file by file (each file `fsync`ed); while it is, this process's SQLite stores put off
/// removing the files of values their saves replace or delete (``ExternalFileRemovals``), so
/// every file the snapshot refers to is still there. Last, the new database and folder take the
/// destination's place (``/StoreCore/StoreFiles/replace(_:withStoreAt:)``: the old journals go,
/// the database is renamed over the old one, the folder follows).
///
/// A race this cannot close: *another process* saving to the source may remove a value's file
/// that the snapshot still refers to before the copy reaches it. The copy then fails with `io`
/// naming the file and the destination is left as it was; taking the backup again succeeds.
/// Files written by saves after the snapshot may be copied too; the copy does not refer to them.
///
/// **Destroying** removes the journals, the database, the `-shm` and the support folder, in that
/// order (``/StoreCore/StoreFiles/remove(_:)``).
///
/// For example:
///
/// ```swift
/// try coordinator.replacePersistentStore(at: backupURL, withPersistentStoreFrom: storeURL, type: .sqlite)
/// try coordinator.destroyPersistentStore(at: backupURL, type: .sqlite)
/// ```
struct SQLiteStoreFiles: PersistentStoreFileOperations {
    /// Pages copied by one backup step (4 MiB with the usual 4 KiB pages); tests take fewer.
    @TaskLocal static var pagesPerStep: Int32 = 1024
    /// Called after each backup step that left pages to copy; tests save between steps with it.
    @TaskLocal static var afterEachStep: (@Sendable () throws -> Void)?

    func replaceStore(
        at destination: URL, destinationOptions: [PersistentStoreOption: StoreValue],
        withStoreFrom source: URL, sourceOptions: [PersistentStoreOption: StoreValue]
    ) throws {
        let sourceSettings = try SQLiteStoreOptions(PersistentStoreDescription(type: .sqlite, url: source).with(sourceOptions))
        _ = try SQLiteStoreOptions(PersistentStoreDescription(type: .sqlite, url: destination).with(destinationOptions))
        try Self.checkIsDatabase(source, allowingEmpty: false)   // and that it is a Core Data store, in the copy's snapshot
        if FileManager.default.fileExists(atPath: destination.path) { try Self.checkIsDatabase(destination, allowingEmpty: true) }

        let staging = destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent).\(UUID().uuidString).replacing", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: false)
        } catch {
            throw StoreError(.io, url: destination, "cannot make a folder for the copy beside the destination: \(error.localizedDescription)", underlying: error)
        }
        defer { try? FileManager.default.removeItem(at: staging) }   // empty after a replace; a failed copy's leftovers
        let copy = staging.appendingPathComponent(destination.lastPathComponent)
        let sourceFolder = Self.supportFolder(of: source)
        try ExternalFileRemovals.whileCopying(sourceFolder.appendingPathComponent("_EXTERNAL_DATA")) {
            try Self.backUp(source, to: copy, busyTimeout: sourceSettings.busyTimeout)
            let vanished = try Self.copyFolder(sourceFolder, to: Self.supportFolder(of: copy))
            try Self.checkNoneReferenced(vanished, in: copy, source: source)
        }
        do {
            try StoreFiles.replace(destination, withStoreAt: copy)
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.io, url: destination, "the copy could not take the destination's place: \(error.localizedDescription)", underlying: error)
        }
    }

    func destroyStore(at url: URL, options: [PersistentStoreOption: StoreValue]) throws {
        _ = try SQLiteStoreOptions(PersistentStoreDescription(type: .sqlite, url: url).with(options))
        if FileManager.default.fileExists(atPath: url.path) { try Self.checkIsDatabase(url, allowingEmpty: true) }
        try StoreFiles.remove(url)
    }

    /// The `.<name>_SUPPORT` folder beside a store.
    static func supportFolder(of url: URL) -> URL {
        url.deletingLastPathComponent().appendingPathComponent(".\(url.deletingPathExtension().lastPathComponent)_SUPPORT", isDirectory: true)
    }

    /// Copies the database at `source`, as one read transaction sees it, into a new database at
    /// `copy`. The source is read through a read-write connection that writes nothing: closed as
    /// the last connection to a store nobody has open, it takes away the `-wal` and `-shm` files
    /// opening it made (a read-only connection would leave them); on read-only media, read-only.
    private static func backUp(_ source: URL, to copy: URL, busyTimeout: Double) throws {
        do {
            let reader: SQLiteConnection
            do {
                reader = try SQLiteConnection(path: source.path, mode: .readWriteExisting, log: .disabled)
            } catch let error as SQLiteError where error.isUnwritable {
                reader = try SQLiteConnection(path: source.path, mode: .readOnly, log: .disabled)
            }
            reader.setBusyTimeout(busyTimeout)
            try reader.execute("BEGIN DEFERRED")
            // The snapshot starts with this read.
            guard try reader.scalar("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'Z_METADATA'") == .integer(1) else {
                throw StoreError(.wrongFormat, url: source, "the SQLite database has no Z_METADATA table, so it is not a Core Data store; nothing was replaced")
            }
            let writer = try SQLiteConnection(path: copy.path, mode: .readWrite, log: .disabled)
            let backup = try SQLiteBackup(from: reader, to: writer)
            while try !backup.step(pages: pagesPerStep, busyTimeout: busyTimeout) {
                try afterEachStep?()
            }
            try backup.finish()
            try reader.execute("COMMIT")
        } catch let error as SQLiteError {
            throw StoreError(error.isCorruption ? .corrupt : .io, url: source, "the store could not be copied: \(error); nothing was replaced", underlying: error)
        }
    }

    /// Copies a folder's files and subfolders (each file and folder flushed to disk), and returns
    /// the relative paths of the files that were removed while it ran.
    private static func copyFolder(_ folder: URL, to copy: URL, under prefix: String = "") throws -> [String] {
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        guard manager.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue else { return [] }
        let names: [String]
        do {
            try manager.createDirectory(at: copy, withIntermediateDirectories: false)
            names = try manager.contentsOfDirectory(atPath: folder.path).sorted()
        } catch {
            throw StoreError(.io, url: folder, "the external data folder could not be copied: \(error.localizedDescription)", underlying: error)
        }
        var vanished: [String] = []
        for name in names {
            let from = folder.appendingPathComponent(name), to = copy.appendingPathComponent(name)
            guard manager.fileExists(atPath: from.path, isDirectory: &isDirectory) else {
                vanished.append(prefix + name)
                continue
            }
            if isDirectory.boolValue {
                vanished += try copyFolder(from, to: to, under: prefix + name + "/")
                continue
            }
            do {
                try manager.copyItem(at: from, to: to)
                let handle = try FileHandle(forWritingTo: to)
                try handle.synchronize()
                try handle.close()
            } catch {
                guard manager.fileExists(atPath: from.path) else {
                    vanished.append(prefix + name)
                    try? manager.removeItem(at: to)
                    continue
                }
                throw StoreError(.io, url: from, "an external data file could not be copied: \(error.localizedDescription)", underlying: error)
            }
        }
        DurableFile.syncDirectory(copy)
        return vanished
    }

    /// Refuses a copy whose database refers to an external data file that was removed before it
    /// could be copied (by another process's save: this process's wait for the backup).
    private static func checkNoneReferenced(_ vanished: [String], in copy: URL, source: URL) throws {
        let names = vanished.compactMap { path -> String? in
            let parts = path.split(separator: "/")
            return parts.count == 2 && parts[0] == "_EXTERNAL_DATA" ? String(parts[1]) : nil
        }
        guard !names.isEmpty else { return }
        let referenced = try SQLiteConnection.reading(copy) { connection -> String? in
            let tables = try connection.collect("SELECT name FROM sqlite_master WHERE type = 'table'", []) { $0.string(at: 0) }
            for table in tables {
                let columns = try connection.collect("SELECT name FROM pragma_table_info(?) WHERE upper(type) = 'BLOB'", [.text(table)]) { $0.string(at: 0) }
                for column in columns {
                    for name in names {
                        let marker = SQLValue.blob(Data([ExternalBinaryStorage.externalMarker]) + Data(name.utf8))
                        if try connection.scalar("SELECT 1 FROM \"\(table)\" WHERE \"\(column)\" = ? LIMIT 1", [marker]) != nil { return name }
                    }
                }
            }
            return nil
        }
        if let referenced {
            throw StoreError(
                .io, url: supportFolder(of: source).appendingPathComponent("_EXTERNAL_DATA").appendingPathComponent(referenced),
                "another process removed an external data file of the copied state while the copy ran; nothing was replaced — try again")
        }
    }

    /// Refuses a file that is not a SQLite database (an empty file is an empty database, where
    /// `allowingEmpty`).
    private static func checkIsDatabase(_ url: URL, allowingEmpty: Bool) throws {
        let header = try SQLiteFileHeader.read(at: url)
        guard (allowingEmpty && header.isEmpty) || SQLiteFileHeader.isDatabase(header) else {
            throw StoreError(.wrongFormat, url: url, "the file is not a SQLite database; nothing was changed")
        }
    }
}

extension PersistentStoreDescription {
    /// The description with `options` set.
    fileprivate func with(_ options: [PersistentStoreOption: StoreValue]) -> PersistentStoreDescription {
        var description = self
        description.options.merge(options) { $1 }
        return description
    }
}
