// `import Stowage` gives the whole public API: the object graph, model files, and each store
// type with its options (`SQLiteStore`, `.sqlitePragma(_:)`, `PostgresStore`, …).
@_exported import StoreCore
@_exported import ModelFiles
@_exported import BinaryBackend
@_exported import MemoryBackend
@_exported import PostgresBackend
@_exported import SQLiteBackend
@_exported import XMLBackend

/// Registers every built-in store type. `PersistentStoreRegistry` calls this by itself the
/// first time it is asked for a store type, whenever this module is linked, so users of
/// `import Stowage` never need to; calling it again is harmless.
///
/// For example:
///
/// ```swift
/// import Stowage
/// let container = PersistentContainer(name: "Blog", managedObjectModel: model)   // every type available
/// ```
public enum BuiltInStores: BuiltInStoreRegistrar {
    /// Registers the in-memory, SQLite, XML, binary and PostgreSQL store types, and the migrators of
    /// the file- and server-backed ones.
    public static func registerAll() {
        MemoryStore.register()
        SQLiteStore.register()
        XMLStore.register()
        BinaryStore.register()
        PostgresStore.register()
    }
}
