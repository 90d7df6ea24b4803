import Foundation

extension PersistentStoreCoordinator {
    /// Copies a loaded store into a new store of any type at `url`, then puts the new store in
    /// the old one's place in this coordinator (the old store's file is left as it was).
    ///
    /// Every object is copied with a new ID in the new store; attributes of every type and every
    /// relationship (ordered ones in order) come along, and so does the application's metadata.
    /// The usual use is exporting a SQLite store to XML to read it:
    ///
    /// ```swift
    /// let store = coordinator.persistentStores[0]
    /// let xml = try coordinator.migratePersistentStore(store, to: exportURL, type: .xml) { progress in
    ///     print("\(Int(progress.fractionCompleted * 100))%")
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - store: A store loaded by this coordinator.
    ///   - url: Where the new store goes (`nil` for an in-memory store). Nothing may exist there yet.
    ///   - options: Options of the new store's description.
    ///   - type: The new store's type.
    ///   - progress: Called as objects are copied, with how many are done.
    /// - Returns: The new store.
    /// - Throws: ``StoreError`` (`alreadyExists` when something is at `url`); on any
    ///   error the old store stays loaded and whatever was created at `url` is removed.
    @discardableResult
    public func migratePersistentStore(
        _ store: any PersistentStore, to url: URL?, options: [PersistentStoreOption: StoreValue] = [:],
        type: PersistentStoreType, progress: (@Sendable (StoreCopyProgress) -> Void)? = nil
    ) throws -> any PersistentStore {
        guard persistentStores.contains(where: { $0 === store }) else {
            throw StoreError(.wrongStore, url: store.url, "the store is not loaded by this coordinator")
        }
        // The store file and what a SQLite store keeps beside it (journal, external data).
        let createdFiles = url.map { $0.isFileURL ? StoreFiles.files(of: $0) : [] } ?? []
        if let existing = createdFiles.first(where: { FileManager.default.fileExists(atPath: $0.path) }) {
            throw StoreError(.alreadyExists, url: existing, "a file is already there; the new store needs a location of its own")
        }
        var description = PersistentStoreDescription(type: type, url: url, configuration: store.configurationName)
        description.options.merge(options) { $1 }
        do {
            let newStore = try PersistentStoreRegistry.makeStore(PersistentStoreLoadRequest(description: description, model: managedObjectModel))
            do {
                // A server's store (not a new file) must be empty too.
                if let url, !url.isFileURL {
                    for entity in managedObjectModel.entities where entity.superentity == nil {
                        guard case .count(let count) = try newStore.execute(StoreFetchRequest(entityName: entity.name, resultType: .count)), count == 0 else {
                            throw StoreError(.alreadyExists, url: url, "the store there already holds \(entity.name) objects; the new store needs a location of its own")
                        }
                    }
                }
                try StoreCopier(source: store, destination: newStore, model: managedObjectModel).copy(progress: progress)
            } catch {
                try? newStore.unload()
                throw error
            }
            try replace(store, with: newStore)
            return newStore
        } catch {
            for file in createdFiles { try? FileManager.default.removeItem(at: file) }
            throw error
        }
    }
}
