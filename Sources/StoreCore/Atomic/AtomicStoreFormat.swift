import Foundation

/// A whole-file format for an atomic store: reads a file's bytes into an ``AtomicStoreFile`` and
/// writes one back. The atomic-store engine (``AtomicStore``) does everything else — fetching,
/// saving, checking what a file says against the model, and replacing the file atomically.
///
/// Objects are laid out by their entity (``AtomicStoreObject``): a fast format reads each value
/// straight to its property index (`entity.propertyIndexes`, looked up once per entity, not per
/// object) and writes from the indexes; a simple one works by name, and the engine resolves the
/// names when the store is loaded.
///
/// Stowage's XML and binary stores are formats; so is any whole-file format of your own. For
/// example, a JSON store:
///
/// ```swift
/// struct JSONStoreFormat: AtomicStoreFormat {
///     func read(_ data: Data, model: ManagedObjectModel) throws -> AtomicStoreFile { … }
///     func write(_ file: AtomicStoreFile, model: ManagedObjectModel) throws -> Data { … }
/// }
/// AtomicStore.register(PersistentStoreType(rawValue: "json"), format: JSONStoreFormat())
/// let description = PersistentStoreDescription(type: PersistentStoreType(rawValue: "json"), url: url)
/// ```
public protocol AtomicStoreFormat: Sendable {
    /// Reads a whole store file. Throw ``StoreError`` with code `corrupt` (or your
    /// own error) for bytes that are not a store of this format; the engine checks what the
    /// objects say against the model itself — entities, property names (for objects built by
    /// name), value types and relationship references.
    func read(_ data: Data, model: ManagedObjectModel) throws -> AtomicStoreFile
    /// The bytes of a whole store file. The engine's files hold objects laid out by `model`'s
    /// entities, in key order.
    func write(_ file: AtomicStoreFile, model: ManagedObjectModel) throws -> Data
    /// Reads only a file's metadata, without a model (for
    /// ``PersistentStoreCoordinator/metadataForPersistentStore(ofType:at:)`` and automatic
    /// migration, which must learn which model version wrote a file before reading its objects).
    /// The default reads the whole file with an empty model, which works for a format that
    /// hands back objects built by name; a format that lays objects out by the model must
    /// implement it (Stowage's XML and binary formats read just the metadata).
    func readMetadata(_ data: Data) throws -> StoreMetadata
}

extension AtomicStoreFormat {
    /// The default: reads the whole file with an empty model and keeps only its metadata.
    public func readMetadata(_ data: Data) throws -> StoreMetadata {
        try read(data, model: ManagedObjectModel { }).metadata
    }
}
