import Foundation
import StoreCore

/// Reads a SQLite store's metadata (`Z_METADATA`) without opening the store: one read-only
/// connection, no model, nothing written — not even to a journal.
///
/// For example:
///
/// ```swift
/// let metadata = try SQLiteMetadataReader.metadata(at: storeURL)
/// metadata.modelVersionHashes.keys   // the entities of the model that last saved it
/// ```
enum SQLiteMetadataReader {
    static func metadata(at url: URL) throws -> StoreMetadata {
        guard SQLiteFileHeader.isDatabase(try SQLiteFileHeader.read(at: url)) else {
            throw StoreError(.wrongFormat, url: url, "the file is not a SQLite database")
        }
        return try SQLiteConnection.reading(url) { connection in
            let tables = try connection.scalar("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'Z_METADATA'")
            guard tables == .integer(1) else {
                throw StoreError(.wrongFormat, url: url, "the SQLite database has no Z_METADATA table, so it is not a Core Data store")
            }
            return try SQLiteStoreOpener.readMetadata(on: connection, url: url)
        }
    }
}
