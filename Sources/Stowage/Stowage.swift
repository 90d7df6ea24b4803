// `import Stowage` gives the whole public API: the object graph, model files, and each store
// type with its options (`SQLiteStore`, `.sqlitePragma(_:)`, and `PostgresStore` with the
// `Postgres` package trait).
@_exported import StoreCore
@_exported import StoreSync
@_exported import ModelFiles
@_exported import BinaryBackend
@_exported import MemoryBackend
#if Postgres
@_exported import PostgresBackend
#endif
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
    /// Registers the in-memory, SQLite, XML and binary store types — and the PostgreSQL one when
    /// the package trait `Postgres` is on — and the migrators of the file- and server-backed ones.
    /// Without the trait, asking for `.postgres` throws `StoreError` `storeTypeUnavailable`.
    public static func registerAll() {
        MemoryStore.register()
        SQLiteStore.register()
        XMLStore.register()
        BinaryStore.register()
        #if Postgres
        PostgresStore.register()
        #endif
    }
}
