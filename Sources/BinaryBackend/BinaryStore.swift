import Foundation
import StoreCore

/// The binary store: the atomic-store engine (``/StoreCore/AtomicStore``) with a binary property-list file
/// (``BinaryStoreFormat``). The whole graph is read when the store is loaded and the whole file
/// replaced, atomically and durably, by every save that changes something — Core Data's
/// `NSBinaryStoreType`, for small and medium graphs that load fast.
///
/// For example:
///
/// ```swift
/// BinaryStore.register()          // done for you by `import Stowage`
/// let container = PersistentContainer(name: "Blog", managedObjectModel: model)
/// container.persistentStoreDescriptions = [PersistentStoreDescription(type: .binary, url: fileURL)]
/// try container.loadPersistentStores()
/// ```
public enum BinaryStore {
    /// Registers the binary store type (``/StoreCore/PersistentStoreType/binary``).
    public static func register() {
        AtomicStore.register(.binary, format: BinaryStoreFormat())
    }

    /// Opens (or creates) the binary store a description names.
    ///
    /// - Throws: ``/StoreCore/StoreError`` for a file that is not a binary store of this model; the file
    ///   is left unchanged.
    public static func open(_ request: PersistentStoreLoadRequest) throws -> AtomicStore {
        try AtomicStore(request, type: .binary, format: BinaryStoreFormat())
    }
}
