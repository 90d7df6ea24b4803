import Foundation
import StoreCore

/// Core Data's XML store format as an ``/StoreCore/AtomicStoreFormat``: files Core Data writes on
/// macOS open here, and files written here open there. The format is described in
/// `docs/xml-format.md`.
///
/// Reading uses libxml2's streaming reader (no DOM), with network access, entity substitution and
/// DTD loading off; a DOCTYPE with declarations (entities) or naming any DTD other than Core
/// Data's is refused before parsing. Writing uses libxml2's text writer.
///
/// For example:
///
/// ```swift
/// let store = try AtomicStore(PersistentStoreLoadRequest(description: description, model: model), type: .xml, format: XMLStoreFormat())
/// let file = try XMLStoreFormat().read(Data(contentsOf: url), model: model)
/// ```
public struct XMLStoreFormat: AtomicStoreFormat {
    /// The XML format; it holds no settings.
    public init() {}

    /// Reads a whole XML store.
    ///
    /// - Throws: ``/StoreCore/StoreError``: `wrongFormat` for bytes that are not
    ///   XML or not a `<database>`; `truncated` for a document that ends early;
    ///   `corrupt` for bad XML, refused DOCTYPEs and entities, and values that are
    ///   not of their type; `unknownEntity`, `unknownProperty`
    ///   and `danglingReference` for what the model does not have. Messages name the line.
    public func read(_ data: Data, model: ManagedObjectModel) throws -> AtomicStoreFile {
        let table = XMLEntityTable(model: model)
        return try data.withUnsafeBytes { bytes in
            try XMLPrologCheck.check(bytes)
            return try withSilencedLibXML2Errors { try XMLStoreReader(document: bytes, table: table).read() }
        }
    }

    /// Reads only the metadata in `<databaseInfo>`, which Core Data writes before the objects;
    /// the objects are not read.
    public func readMetadata(_ data: Data) throws -> StoreMetadata {
        let table = XMLEntityTable(model: try ManagedObjectModel {})
        return try data.withUnsafeBytes { bytes in
            try XMLPrologCheck.check(bytes)
            return try withSilencedLibXML2Errors { try XMLStoreReader(document: bytes, table: table).read(metadataOnly: true).metadata }
        }
    }

    /// The bytes of a whole XML store.
    ///
    /// - Throws: ``/StoreCore/StoreError`` with `invalidOption` for a string holding a
    ///   character XML 1.0 cannot hold (such as U+0000 or U+001B), naming the object and attribute.
    public func write(_ file: AtomicStoreFile, model: ManagedObjectModel) throws -> Data {
        let writer = XMLStoreWriter(table: XMLEntityTable(model: model))
        return try withSilencedLibXML2Errors { try writer.write(file) }
    }
}
