import Foundation
import StoreCore

/// The XML store: the atomic-store engine (``/StoreCore/AtomicStore``) with Core Data's XML file
/// format (``XMLStoreFormat``). The whole graph is read when the store is loaded and the whole
/// file is replaced atomically by every save — a store for people and other programs to read,
/// not for large data.
///
/// For example:
///
/// ```swift
/// XMLStore.register()          // done for you by `import Stowage`
/// let container = PersistentContainer(name: "Blog", managedObjectModel: model)
/// container.persistentStoreDescriptions = [PersistentStoreDescription(type: .xml, url: url)]
/// try container.loadPersistentStores()
/// ```
public enum XMLStore {
    /// Registers the XML store type (``/StoreCore/PersistentStoreType/xml``).
    public static func register() {
        AtomicStore.register(.xml, format: XMLStoreFormat())
    }

    /// Opens the XML store a description names, creating its file when there is none.
    public static func open(_ request: PersistentStoreLoadRequest) throws -> AtomicStore {
        try AtomicStore(request, type: .xml, format: XMLStoreFormat())
    }
}
