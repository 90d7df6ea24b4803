/// The contents of an atomic store file: its metadata, the next free primary key and every object.
///
/// Objects refer to each other by primary key, which is unique in the whole store (as the
/// `z<n>` IDs of Core Data's XML store are). The engine hands a format a file whose objects are
/// laid out by the model's entities (``AtomicStoreObject``); a format may hand back objects laid
/// out or built by name.
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

    /// A file with this metadata and these objects; `nextPrimaryKey` is the key the next new object
    /// gets (when loading, the engine raises it past the highest key the file holds).
    public init(metadata: StoreMetadata, nextPrimaryKey: Int64 = 1, objects: [AtomicStoreObject] = []) {
        self.metadata = metadata
        self.nextPrimaryKey = nextPrimaryKey
        self.objects = objects
    }
}
