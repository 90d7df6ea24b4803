import Foundation

extension ManagedObjectModel {
    /// Whether a store with this metadata was saved with this model (Core Data's
    /// `isConfiguration(withName:compatibleWithStoreMetadata:)`): the version hash of every
    /// entity of the configuration equals the one the store recorded — Core Data's hash (what
    /// Apple's Core Data and Stowage write) or Stowage's own (stores written before Stowage
    /// recorded Core Data's). For the whole model (`nil` or "Default"), the store must also
    /// record no entity the model lacks.
    ///
    /// For example:
    ///
    /// ```swift
    /// let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(at: storeURL)
    /// if !model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) {
    ///     // the store needs migrating
    /// }
    /// ```
    ///
    /// A configuration this model does not have is not compatible with any store.
    public func isConfiguration(withName name: String?, compatibleWithStoreMetadata metadata: StoreMetadata) -> Bool {
        let stored = metadata.modelVersionHashes
        guard !stored.isEmpty, let entities = try? entities(forConfiguration: name) else { return false }
        let coreData = coreDataEntityVersionHashesByName
        let wholeModel = name == nil || name == "Default"
        if wholeModel, stored.count != entities.count { return false }
        return entities.allSatisfy { entity in
            guard let hash = stored[entity.name] else { return false }
            return hash == coreData[entity.name] || hash == entity.versionHash
        }
    }
}
