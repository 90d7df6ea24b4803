import Foundation
import StoreCore

/// Reads the model cache Core Data keeps in its SQLite stores: `Z_MODELCACHE.Z_CONTENT`, a
/// raw-deflate-compressed compiled model, returned as stored (decoding it is `ModelFiles`'
/// `CoreDataModelCache`). The file is opened read-only and never changed.
///
/// For example:
///
/// ```swift
/// if let blob = try SQLiteModelCache.compressedContent(ofStoreAt: url) { … }
/// ```
package enum SQLiteModelCache {
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
