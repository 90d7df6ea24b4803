import Foundation

extension PersistentStoreType {
    /// The built-in store type of the file at `url`, recognised by its first bytes: SQLite's
    /// header, a binary property list (`bplist00`), or an XML document whose root is Core Data's
    /// `database`.
    ///
    /// For example:
    ///
    /// ```swift
    /// let type = try PersistentStoreType(detectingStoreAt: URL(fileURLWithPath: "Blog.sqlite"))   // .sqlite
    /// ```
    ///
    /// - Throws: ``/StoreCore/StoreError`` — `io` when the file cannot be read,
    ///   `wrongFormat` when it is none of these.
    public init(detectingStoreAt url: URL) throws {
        let prefix: Data
        do {
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            prefix = try handle.read(upToCount: 512) ?? Data()
        } catch {
            throw StoreError(.io, url: url, "the file cannot be read: \(error.localizedDescription)", underlying: error)
        }
        if prefix.starts(with: Data("SQLite format 3\0".utf8)) {
            self = .sqlite
        } else if prefix.starts(with: Data("bplist00".utf8)) {
            self = .binary
        } else if Self.looksLikeXMLStore(prefix) {
            self = .xml
        } else {
            throw StoreError(.wrongFormat, url: url, "not a store file Stowage knows (SQLite, XML or binary property list)")
        }
    }

    private static func looksLikeXMLStore(_ prefix: Data) -> Bool {
        var text = String(decoding: prefix, as: UTF8.self)
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        let trimmed = text.drop { $0.isWhitespace }
        return (trimmed.hasPrefix("<?xml") || trimmed.hasPrefix("<!DOCTYPE") || trimmed.hasPrefix("<database")) && text.contains("<database")
    }
}
