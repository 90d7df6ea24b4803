import Foundation

/// A whole-file format for an atomic store: reads a file's bytes into an ``AtomicStoreFile`` and
/// writes one back. The atomic-store engine (``AtomicStore``) does everything else — fetching,
/// saving, checking what a file says against the model, and replacing the file atomically.
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
    /// Reads a whole store file. Throw ``StoreError`` with code ``ErrorCode/corrupt`` (or your
    /// own error) for bytes that are not a store of this format; the engine checks entities,
    /// properties, value types and relationship references against the model itself.
    func read(_ data: Data, model: ManagedObjectModel) throws -> AtomicStoreFile
    /// The bytes of a whole store file.
    func write(_ file: AtomicStoreFile, model: ManagedObjectModel) throws -> Data
}

/// The contents of an atomic store file: its metadata, the next free primary key and every object.
///
/// Objects refer to each other by primary key, which is unique in the whole store (as the
/// `z<n>` IDs of Core Data's XML store are).
///
/// For example:
///
/// ```swift
/// var file = AtomicStoreFile(metadata: StoreMetadata(storeType: "json"))
/// file.objects.append(AtomicStoreObject(entityName: "Post", primaryKey: 1, attributes: ["title": "Hello"]))
/// file.nextPrimaryKey = 2
/// ```
public struct AtomicStoreFile: Sendable, Hashable {
    /// The store's metadata (identifier, model version hashes, the application's keys).
    public var metadata: StoreMetadata
    /// The key the next new object gets; greater than every object's key.
    public var nextPrimaryKey: Int64
    /// Every object, in the order the file lists them.
    public var objects: [AtomicStoreObject]
    /// Metadata keys Stowage does not model, kept as read so rewriting a file keeps them.
    package var preservedMetadata: [String: PropertyListValue] = [:]

    public init(metadata: StoreMetadata, nextPrimaryKey: Int64 = 1, objects: [AtomicStoreObject] = []) {
        self.metadata = metadata
        self.nextPrimaryKey = nextPrimaryKey
        self.objects = objects
    }
}

/// One object of an ``AtomicStoreFile``: its entity, its key, its attribute values and the keys of
/// the objects each relationship holds (at most one for a to-one; in order for an ordered to-many).
/// Attributes that are `nil` and relationships that are empty may be left out.
///
/// For example:
///
/// ```swift
/// AtomicStoreObject(entityName: "Post", primaryKey: 7, attributes: ["title": "Hello"], relationships: ["author": [3]])
/// ```
public struct AtomicStoreObject: Sendable, Hashable {
    public var entityName: String
    public var primaryKey: Int64
    public var attributes: [String: StoreValue]
    public var relationships: [String: [Int64]]

    public init(entityName: String, primaryKey: Int64, attributes: [String: StoreValue] = [:], relationships: [String: [Int64]] = [:]) {
        self.entityName = entityName
        self.primaryKey = primaryKey
        self.attributes = attributes
        self.relationships = relationships
    }
}
