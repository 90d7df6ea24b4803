import Foundation
import StoreCore

/// The binary store's file format for the atomic-store engine: the whole object graph as one
/// binary property list (`bplist00`), the objects stored entity by entity in columns.
///
/// Files are compact (equal strings and integers stored once, columns instead of one dictionary
/// per object) and fast to write and read; they read in Foundation's `PropertyListSerialization`
/// and in any other binary property-list reader. The layout, and how `nil` and each attribute
/// type are written, is described in docs/binary-format.md. Every value round-trips exactly —
/// integers at their limits, `Float`s as 4-byte reals, NaN and infinities, decimals by their
/// digits, strings with any Unicode scalars (NUL included), dates to the bit.
///
/// Reading is safe for files from anywhere: any bytes give a file or a ``/StoreCore/StoreError``
/// (`wrongFormat`, `truncated` or `corrupt`), in time and
/// memory proportional to the file's size. The engine (``/StoreCore/AtomicStore``) then checks entities,
/// properties, value types and references against the model.
///
/// For example:
///
/// ```swift
/// let format = BinaryStoreFormat()
/// let data = try format.write(file, model: model)
/// let again = try format.read(data, model: model)
/// ```
public struct BinaryStoreFormat: AtomicStoreFormat {
    /// The binary format; it holds no settings.
    public init() {}

    /// Decodes a `bplist00` binary store file column by column into objects laid out by `model`'s entities;
    /// bytes that are not one throw `StoreError` (`wrongFormat`, `truncated` or `corrupt`).
    public func read(_ data: Data, model: ManagedObjectModel) throws -> AtomicStoreFile {
        try BinaryStoreDecoder(model: model).decode(data)
    }

    /// Reads only the metadata (and store identifier); the entity tables are not decoded.
    public func readMetadata(_ data: Data) throws -> StoreMetadata {
        try BinaryStoreDecoder(model: ManagedObjectModel {}).decode(data, metadataOnly: true).metadata
    }

    /// Encodes the file as a binary property list, entity tables sorted by name and written column by column;
    /// it never fails.
    public func write(_ file: AtomicStoreFile, model: ManagedObjectModel) throws -> Data {
        BinaryStoreEncoder(model: model).encode(file)
    }
}
