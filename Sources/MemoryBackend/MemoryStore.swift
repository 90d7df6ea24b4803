import Foundation
import StoreCore

/// The in-memory store: the atomic-store engine (``/StoreCore/AtomicStore``) with no file. The whole graph
/// is in memory, every fetch is evaluated in memory, and nothing is written anywhere. Each store
/// is independent, so every container that loads one starts empty and shares nothing — the
/// store to use for test fixtures.
///
/// For example:
///
/// ```swift
/// MemoryStore.register()          // done for you by `import Stowage`
/// let container = PersistentContainer(name: "Fixture", managedObjectModel: model)
/// container.persistentStoreDescriptions = [PersistentStoreDescription(type: .inMemory)]
/// try container.loadPersistentStores()
/// ```
public enum MemoryStore {
    /// Registers the in-memory store type (``/StoreCore/PersistentStoreType/inMemory``).
    public static func register() {
        AtomicStore.register(.inMemory, format: nil)
    }

    /// Opens a new, empty in-memory store for a description.
    public static func open(_ request: PersistentStoreLoadRequest) throws -> AtomicStore {
        try AtomicStore(request, type: .inMemory, format: nil)
    }
}
