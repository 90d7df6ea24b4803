import Foundation
import StoreCore

/// The first bytes of a SQLite database file, read without opening it: what tells a database
/// (or an empty file, which SQLite treats as an empty database) from anything else.
///
/// For example:
///
/// ```swift
/// let header = try SQLiteFileHeader.read(at: url)
/// if SQLiteFileHeader.isDatabase(header) { … }
/// ```
enum SQLiteFileHeader {
    /// Every SQLite database file starts with these 16 bytes.
    static let magic = Data("SQLite format 3\0".utf8)

    /// The file's first 16 bytes (fewer for a shorter file).
    ///
    /// - Throws: ``/StoreCore/StoreError`` `io` when the file cannot be opened or read.
    static func read(at url: URL) throws -> Data {
        do {
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            return try handle.read(upToCount: magic.count) ?? Data()
        } catch {
            throw StoreError(.io, url: url, "the file cannot be read: \(error.localizedDescription)", underlying: error)
        }
    }

    /// Whether `header` is a SQLite database's.
    static func isDatabase(_ header: Data) -> Bool { header == magic }
}
