import Foundation
import Logging
import StoreCore

/// The model cache Core Data keeps in its SQLite stores: `Z_MODELCACHE.Z_CONTENT`, a
/// raw-deflate-compressed compiled model (the archive of a `.mom` file). Stores Stowage creates
/// or migrates get one, as Core Data's do — written by StoreCore's `CompiledModelArchiver` and
/// compressed here with zlib; reading hands the content back as stored (decoding it is
/// `ModelFiles`' `CoreDataModelCache`), from a file opened read-only and never changed.
///
/// For example:
///
/// ```swift
/// try SQLiteModelCache.write(model, on: connection, url: url)           // inside the creating transaction
/// if let blob = try SQLiteModelCache.compressedContent(ofStoreAt: url) { … }
/// ```
package enum SQLiteModelCache {
    /// The table as Core Data declares it.
    static let createStatement = "CREATE TABLE IF NOT EXISTS Z_MODELCACHE (Z_CONTENT BLOB)"

    private static let logger = Logger(label: "stowage.sqlite")

    /// Replaces the store's cached model with `model`'s compiled form, creating the table when the
    /// store has none. What the archive cannot hold (see `CompiledModelArchiver.leftOut`) is
    /// logged as a warning; the rest of the model is cached.
    ///
    /// - Throws: ``/StoreCore/StoreError`` `incompatibleModel` when a value in the model cannot be
    ///   archived, `io` when zlib fails, or the connection's error.
    static func write(_ model: ManagedObjectModel, on connection: SQLiteConnection, url: URL) throws {
        var archiver = CompiledModelArchiver()
        let content: Data
        do {
            content = try Deflater.deflate(try archiver.encode(model))
        } catch let error as PropertyListError {
            throw StoreError(.incompatibleModel, url: url, "the model cannot be cached in Z_MODELCACHE: \(error)", underlying: error)
        } catch {
            throw StoreError(.io, url: url, "the model cache (Z_MODELCACHE) cannot be compressed: \(error)", underlying: error)
        }
        for line in archiver.leftOut {
            logger.warning("\(url.lastPathComponent): the model cache (Z_MODELCACHE) leaves out \(line)")
        }
        try connection.execute(createStatement)
        try connection.execute("DELETE FROM Z_MODELCACHE")
        _ = try connection.run("INSERT INTO Z_MODELCACHE (Z_CONTENT) VALUES (?)", [.blob(content)])
    }

    /// The most bytes the compressed cache may have.
    package static let maxCompressedSize = 16 << 20

    /// `Z_CONTENT` of the store's `Z_MODELCACHE`; `nil` when the store has none (stores Stowage
    /// writes, and Core Data's before macOS 10.12/iOS 10).
    ///
    /// - Throws: ``/StoreCore/StoreError`` — `io` when the file cannot be opened or read, `corrupt` when the
    ///   cache is larger than ``maxCompressedSize``.
    package static func compressedContent(ofStoreAt url: URL) throws -> Data? {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw StoreError(.io, url: url, "there is no file here")
        }
        do {
            let connection = try SQLiteConnection(path: url.path, mode: .readOnly, log: .disabled)
            connection.setBusyTimeout(5)
            var hasTable = false
            try connection.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'Z_MODELCACHE'") { _ in hasTable = true }
            guard hasTable else { return nil }
            var content: Data?
            var size: Int64 = 0
            try connection.query("SELECT length(Z_CONTENT), Z_CONTENT FROM Z_MODELCACHE WHERE Z_CONTENT IS NOT NULL LIMIT 1") { row in
                size = row.int64(at: 0)
                if size <= maxCompressedSize { content = row.data(at: 1) }
            }
            guard size <= maxCompressedSize else {
                throw StoreError(.corrupt, url: url, "the model cache (Z_MODELCACHE) has \(size) bytes, more than the \(maxCompressedSize) it may have")
            }
            return content
        } catch let error as SQLiteError {
            throw StoreError(error.isCorruption ? .corrupt : .io, url: url, "cannot read the model cache (Z_MODELCACHE): \(error)", underlying: error)
        }
    }
}
