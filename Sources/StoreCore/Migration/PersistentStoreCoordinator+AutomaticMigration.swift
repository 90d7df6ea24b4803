import Foundation

extension PersistentStoreCoordinator {
    /// Migrates the store a description names before it is opened, when it was saved with
    /// another version of the coordinator's model and the description allows it (Core Data's
    /// lightweight migration on `addPersistentStore`):
    ///
    /// 1. the store's metadata is read without opening it;
    /// 2. if its version hashes are the model's, nothing happens;
    /// 3. otherwise the version that wrote it is looked for among the model's
    ///    ``ManagedObjectModel/migrationSourceModels``; when none did, the store is left for
    ///    its type to accept (a layout that still fits) or refuse;
    /// 4. a mapping model of the model's ``ManagedObjectModel/migrationMappingModels`` made for
    ///    that version and this one is carried out by a ``MigrationManager`` (a new store renamed
    ///    over the old one);
    /// 5. otherwise the mapping is inferred (``MappingModel/inferredMappingModel(forSourceModel:destinationModel:)``)
    ///    and the store type's ``PersistentStoreMigrator`` carries the store over in place.
    ///
    /// A description with a ``PersistentStoreDescription/stagedMigrationManager`` walks its stages instead.
    ///
    /// Read-only stores, stores of a type without a migrator, and descriptions with
    /// ``PersistentStoreDescription/shouldMigrateStoreAutomatically`` off are never migrated.
    ///
    /// An inferred mapping's likely entity renames (``MappingModel/likelyEntityRenames``) are
    /// logged, and refused with ``PersistentStoreDescription/shouldRefuseLikelyEntityRenames``.
    ///
    /// - Throws: ``MigrationError`` when the mapping cannot be inferred (or inferring is off),
    ///   a likely rename is refused, or the migration fails; the store is then as it was.
    func migrateIfNeeded(_ description: PersistentStoreDescription) throws {
        guard description.shouldMigrateStoreAutomatically, !description.isReadOnly, let url = description.url else { return }
        // A file store must exist and not be empty; a server's store (PostgreSQL) is asked for its metadata.
        if url.isFileURL {
            guard let size = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? Int, size > 0 else { return }
        }
        // A store whose metadata cannot be read is left for the store to open, and refuse with its
        // own error — but a server that cannot be reached fails the load now: connecting again to
        // open the store would only wait out the connect timeout a second time.
        let metadata: StoreMetadata
        do {
            metadata = try PersistentStoreRegistry.metadata(ofType: description.type, at: url, options: description.options)
        } catch let error as StoreError where error.code == .serverUnavailable {
            throw error
        } catch {
            return
        }
        guard !metadata.modelVersionHashes.isEmpty else { return }
        let model = managedObjectModel
        if let staged = description.stagedMigrationManager {
            try staged.migrate(description, to: model, url: url, metadata: metadata)
            return
        }
        guard let migrator = PersistentStoreRegistry.migrator(for: description.type) else { return }
        let configuration = description.configuration
        guard !metadata.modelVersionHashes.isEmpty,
            !model.isConfiguration(withName: configuration, compatibleWithStoreMetadata: metadata)
        else { return }
        guard let source = model.migrationSourceModels.last(where: { $0.isConfiguration(withName: configuration, compatibleWithStoreMetadata: metadata) }) else {
            return
        }
        if let mapping = model.migrationMappingModels.first(where: { $0.isMapping(fromSourceModel: source, toDestinationModel: model) }) {
            try MigrationManager(sourceModel: source, destinationModel: model)
                .migrateStore(at: url, type: description.type, options: description.options, with: mapping)
            return
        }
        guard description.shouldInferMappingModelAutomatically else {
            throw MigrationError(
                .missingMappingModel, url: url,
                "the store was saved with another model version and inferring the mapping is turned off (shouldInferMappingModelAutomatically)")
        }
        let mapping: MappingModel
        do throws(MigrationError) {
            mapping = try MappingModel.inferredMappingModel(forSourceModel: source, destinationModel: model)
        } catch {
            throw MigrationError(error.code, url: url, entity: error.entity, key: error.key, "the store cannot be migrated automatically: \(error.message)")
        }
        try mapping.checkLikelyEntityRenames(url: url, options: description.options)
        try migrator.migrateStore(StoreMigrationRequest(
            url: url, type: description.type, options: description.options, sourceModel: source, destinationModel: model, mapping: mapping))
    }
}
