import Foundation

extension MigrationManager {
    /// Migrates the store at `url` in place: the migrated store is made beside it, then renamed
    /// over it (``migrateStore(from:type:options:with:to:type:options:)`` does the work). A
    /// crash leaves the old store or the migrated one, and at worst a leftover hidden
    /// `.<name>-migrating-…` file beside it. Automatic migration on load uses this when a
    /// mapping model fits the store.
    ///
    /// For example:
    ///
    /// ```swift
    /// try MigrationManager(sourceModel: v1, destinationModel: v2).migrateStore(at: url, type: .sqlite, with: mapping)
    /// ```
    ///
    /// Objects get new keys, so their IDs and URIs change (as with Core Data's migration manager).
    public func migrateStore(at url: URL, type: PersistentStoreType, options: [PersistentStoreOption: StoreValue] = [:], with mapping: MappingModel) throws {
        try settle(url, type: type, options: options)
        let name = url.deletingPathExtension().lastPathComponent
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(name)-migrating-\(UUID().uuidString)")
            .appendingPathExtension(url.pathExtension)
        try migrateStore(from: url, type: type, options: options, with: mapping, to: temporary, type: type, options: options)
        do {
            try StoreFiles.replace(url, withStoreAt: temporary)
        } catch {
            for file in StoreFiles.files(of: temporary) { try? FileManager.default.removeItem(at: file) }
            throw error
        }
    }

    /// Opens and closes the store with its own model once when it has a write-ahead log, so what
    /// the log holds is in the file before the file is replaced (a log must never outlive its file).
    private func settle(_ url: URL, type: PersistentStoreType, options: [PersistentStoreOption: StoreValue]) throws {
        guard FileManager.default.fileExists(atPath: url.path + "-wal") else { return }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: sourceModel)
        var description = PersistentStoreDescription(type: type, url: url)
        description.options.merge(options) { $1 }
        description.shouldMigrateStoreAutomatically = false
        let store = try coordinator.addPersistentStore(with: description)
        try coordinator.removePersistentStore(store)
    }
}
