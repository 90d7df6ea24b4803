import Foundation

/// Migrates a store with a mapping model by making every destination object through contexts,
/// as Core Data's `NSMigrationManager`: the source store is opened read-only with the source
/// model, a new store is created with the destination model, and each entity mapping's
/// ``EntityMigrationPolicy`` makes the objects (first every object, then every relationship,
/// then validation). It works with every store type, custom mappings
/// (``EntityMapping/MappingType/custom``) and value expressions included; the lightweight path
/// that migrates a store in place is ``PersistentStoreMigrator``.
///
/// For example:
///
/// ```swift
/// let manager = MigrationManager(sourceModel: v1, destinationModel: v2)
/// manager.progressHandler = { print("\(Int($0 * 100))%") }
/// try manager.migrateStore(from: oldURL, type: .sqlite, with: mapping, to: newURL, type: .sqlite)
/// ```
///
/// The migration runs in bounded memory: source objects are taken ``batchSize`` at a time, the
/// objects made from them are saved to the new store, and both contexts are reset before the
/// next batch; which destination objects were made from which source objects is kept by ID only
/// (about 100 bytes an object), so the relationship phase finds them across batches. A policy
/// must therefore not keep managed objects from one batch to the next (keep their IDs).
///
/// Objects get new keys in the new store (their IDs change, as in Core Data). A migration that
/// fails or is cancelled removes whatever it created at the destination and leaves the source
/// as it was.
public final class MigrationManager {
    /// The model of the store being read.
    public let sourceModel: ManagedObjectModel
    /// The model of the store being made.
    public let destinationModel: ManagedObjectModel
    /// The mapping of the migration under way.
    public private(set) var mappingModel = MappingModel(entityMappings: [])
    /// The context the source objects are fetched into (read-only store).
    public private(set) var sourceContext = ManagedObjectContext(concurrencyType: .privateQueue)
    /// The context destination objects are made in. It runs on the source context's queue, so
    /// a policy may use both.
    public private(set) var destinationContext = ManagedObjectContext(concurrencyType: .privateQueue)
    /// The entity mapping being carried out.
    public private(set) var currentEntityMapping: EntityMapping?
    /// How much of the migration is done, from 0 to 1 (each source object counts twice: once
    /// when its destination objects are made, once when their relationships are set).
    public private(set) var migrationProgress = 0.0
    /// Called each time ``migrationProgress`` advances by a percent or more, and at the end.
    public var progressHandler: ((Double) -> Void)?
    /// Free-form information for policies.
    public var userInfo: [String: Any] = [:]
    /// How many source objects (in the relationship phase, destination objects) are handled
    /// before the objects made are saved and both contexts let go of every object (Stowage's
    /// own; Core Data's manager keeps every object until the end). At least 1; 1,000 by default.
    ///
    /// For example:
    ///
    /// ```swift
    /// manager.batchSize = 5_000   // fewer, larger saves; more objects in memory at once
    /// ```
    public var batchSize = 1_000

    private var cancellation: (any Error)?
    private var instances = MigrationInstanceMap()
    /// Steps done of the migration's total (two per source object), and the fraction last reported.
    private var progress = (done: 0, total: 1, reported: 0.0)

    /// A manager migrating stores from `sourceModel` to `destinationModel` — Core Data's
    /// `NSMigrationManager(sourceModel:destinationModel:)`.
    public init(sourceModel: ManagedObjectModel, destinationModel: ManagedObjectModel) {
        self.sourceModel = sourceModel
        self.destinationModel = destinationModel
    }

    /// Stops the migration under way: it throws `error` at the next object and removes what it
    /// created. Call it from a policy, or from the progress handler.
    public func cancelMigration(with error: any Error) {
        cancellation = error
    }

    // MARK: Instances

    /// Records that `destination` was made from `source` by `mapping`.
    public func associate(sourceInstance source: ManagedObject, withDestinationInstance destination: ManagedObject, for mapping: EntityMapping) {
        instances.associate(source: source.objectID, destination: destination, mapping: mapping.name)
    }

    /// The objects made from `sources` by the mapping named `name` (by every mapping for `nil`),
    /// in the order of `sources`. Objects made in an earlier batch come back as faults.
    public func destinationInstances(forEntityMappingName name: String?, sourceInstances sources: [ManagedObject]) -> [ManagedObject] {
        sources.flatMap { source in
            instances.destinations(of: source.objectID, mapping: name).compactMap { destinationContext.registeredOrFaultObject(for: $0) }
        }
    }

    /// The objects `destinations` were made from by the mapping named `name` (any for `nil`).
    public func sourceInstances(forEntityMappingName name: String?, destinationInstances destinations: [ManagedObject]) -> [ManagedObject] {
        destinations.compactMap { destination in
            instances.source(of: destination.objectID, mapping: name).flatMap { sourceContext.registeredOrFaultObject(for: $0) }
        }
    }

    /// The source entity of a mapping, in the source model.
    public func sourceEntity(for mapping: EntityMapping) -> EntityDescription? {
        mapping.sourceEntityName.flatMap { sourceModel.entitiesByName[$0] }
    }

    /// The destination entity of a mapping, in the destination model.
    public func destinationEntity(for mapping: EntityMapping) -> EntityDescription? {
        mapping.destinationEntityName.flatMap { destinationModel.entitiesByName[$0] }
    }

    // MARK: Migrating

    /// Migrates the store at `sourceURL` into a new store at `destinationURL` with `mapping`.
    ///
    /// - Parameters:
    ///   - sourceURL: The store to read; it is opened read-only and never changed.
    ///   - sourceType: Its type.
    ///   - sourceOptions: Options of the source store's description.
    ///   - mapping: How each entity's objects are made (``MappingModel/inferredMappingModel(forSourceModel:destinationModel:)``
    ///     gives a starting point, a `.xcmappingmodel` another).
    ///   - destinationURL: Where the new store goes (`nil`: an in-memory store, for tests). Nothing may be there.
    ///   - destinationType: Its type.
    ///   - destinationOptions: Options of the new store's description.
    /// - Throws: ``MigrationError`` (`migrationFailed` wrapping what went wrong, `invalidMapping` for a
    ///   mapping that names what the models lack), or the error given to ``cancelMigration(with:)``.
    public func migrateStore(
        from sourceURL: URL, type sourceType: PersistentStoreType, options sourceOptions: [PersistentStoreOption: StoreValue] = [:],
        with mapping: MappingModel, to destinationURL: URL?, type destinationType: PersistentStoreType,
        options destinationOptions: [PersistentStoreOption: StoreValue] = [:]
    ) throws {
        try check(mapping)
        let createdFiles = destinationURL.map { $0.isFileURL ? StoreFiles.files(of: $0) : [] } ?? []
        if let existing = createdFiles.first(where: { FileManager.default.fileExists(atPath: $0.path) }) {
            throw StoreError(.alreadyExists, url: existing, "a file is already there; the migrated store needs a location of its own")
        }
        mappingModel = mapping
        reset()
        migrationProgress = 0
        let sourceCoordinator = PersistentStoreCoordinator(managedObjectModel: sourceModel)
        let destinationCoordinator = PersistentStoreCoordinator(managedObjectModel: destinationModel)
        var source = PersistentStoreDescription(type: sourceType, url: sourceURL)
        source.options.merge(sourceOptions) { $1 }
        source.options[.readOnly] = .boolean(true)
        source.options[.migratePersistentStoresAutomatically] = .boolean(false)
        var destination = PersistentStoreDescription(type: destinationType, url: destinationURL)
        destination.options.merge(destinationOptions) { $1 }
        destination.options[.migratePersistentStoresAutomatically] = .boolean(false)
        do {
            try sourceCoordinator.addPersistentStore(with: source)
            try destinationCoordinator.addPersistentStore(with: destination)
            sourceContext = ManagedObjectContext(concurrencyType: .privateQueue)
            sourceContext.persistentStoreCoordinator = sourceCoordinator
            destinationContext = ManagedObjectContext(sharingQueueWith: sourceContext)
            destinationContext.persistentStoreCoordinator = destinationCoordinator
            // Batches are saved before every relationship is set: what depends on other objects is
            // checked once all are made (``validateDestination()``).
            destinationContext.defersRelationshipValidation = true
            try sourceContext.performAndWait { try run(mapping) }
            // The application's metadata comes along.
            if let from = sourceCoordinator.persistentStores.first, let to = destinationCoordinator.persistentStores.first {
                var metadata = to.metadata
                metadata.userInfo = from.metadata.userInfo
                try destinationCoordinator.setMetadata(metadata, for: to)
            }
            try close(sourceCoordinator)
            try close(destinationCoordinator)
            reset()  // migrationProgress stays at 1
        } catch {
            let cancelled = cancellation, place = currentEntityMapping?.name
            try? close(sourceCoordinator)
            try? close(destinationCoordinator)
            reset()
            for file in createdFiles { try? FileManager.default.removeItem(at: file) }
            if let cancelled { throw cancelled }
            if error is MigrationError { throw error }
            throw MigrationError(.migrationFailed, url: sourceURL, entity: place, "the migration failed: \(error)")
        }
    }

    private func run(_ mapping: MappingModel) throws {
        let active = mapping.entityMappings.filter { $0.mappingType != .add && $0.mappingType != .remove }
        var policies: [String: EntityMigrationPolicy] = [:]
        for entityMapping in active {
            policies[entityMapping.name] = try policy(for: entityMapping)
        }
        var sources: [String: CompactObjectIDList] = [:]
        for entityMapping in active {
            sources[entityMapping.name] = CompactObjectIDList(try sourceObjectIDs(of: entityMapping))
        }
        let sourceCounts = sources.mapValues(\.count)
        progress = (done: 0, total: max(1, sourceCounts.values.reduce(0, +) * 2), reported: 0)
        let size = max(1, batchSize)

        // Every destination object, a batch of source objects at a time.
        for entityMapping in active {
            guard let policy = policies[entityMapping.name], let ids = sources[entityMapping.name] else { continue }
            currentEntityMapping = entityMapping
            try policy.begin(entityMapping, with: self)
            for start in stride(from: 0, to: ids.count, by: size) {
                for source in sourceContext.materialize(Array(ids[start..<min(start + size, ids.count)])) {
                    try policy.createDestinationInstances(forSource: source, in: entityMapping, manager: self)
                    try advance()
                }
                try saveBatch()
            }
            try policy.endInstanceCreation(forMapping: entityMapping, manager: self)
            try saveBatch()
        }
        sources = [:]

        // Every relationship, a batch of destination objects at a time (found by ID).
        for entityMapping in active {
            guard let policy = policies[entityMapping.name] else { continue }
            currentEntityMapping = entityMapping
            var remaining = sourceCounts[entityMapping.name] ?? 0
            if setsRelationships(policy, entityMapping) {
                let count = instances.count(of: entityMapping.name)
                for start in stride(from: 0, to: count, by: size) {
                    let links = instances.links(of: entityMapping.name, in: start..<min(start + size, count))
                    _ = sourceContext.materialize(links.map(\.source))   // one read for the batch, not one per object
                    for destination in destinationContext.materialize(links.map(\.destination)) {
                        try policy.createRelationships(forDestination: destination, in: entityMapping, manager: self)
                    }
                    try saveBatch()
                    let step = min(remaining, links.count)
                    try advance(by: step)
                    remaining -= step
                }
            }
            try advance(by: remaining)
            try policy.endRelationshipCreation(forMapping: entityMapping, manager: self)
            try saveBatch()
        }

        for entityMapping in active {
            guard let policy = policies[entityMapping.name] else { continue }
            currentEntityMapping = entityMapping
            try policy.performCustomValidation(forMapping: entityMapping, manager: self)
            try policy.end(entityMapping, manager: self)
        }
        currentEntityMapping = nil
        try saveBatch()
        try validateDestination()
        if migrationProgress < 1 {
            migrationProgress = 1
            progressHandler?(1)
        }
    }

    /// Counts `count` steps done, reports each percent, and throws once the migration is cancelled.
    private func advance(by count: Int = 1) throws {
        for _ in 0..<count {
            if let cancellation { throw cancellation }
            progress.done += 1
            migrationProgress = Double(progress.done) / Double(progress.total)
            if migrationProgress - progress.reported >= 0.01 || progress.done == progress.total {
                progress.reported = migrationProgress
                progressHandler?(migrationProgress)
            }
            if let cancellation { throw cancellation }
        }
    }

    /// Saves what the batch made or changed, records the new objects' permanent IDs, and lets
    /// go of every object of both contexts.
    private func saveBatch() throws {
        try destinationContext.save()
        instances.adoptPermanentIDs()
        destinationContext.reset()
        sourceContext.reset()
    }

    /// Whether the relationship phase has anything to do for a mapping: not for the default
    /// policy when no relationship mapping has a value expression.
    private func setsRelationships(_ policy: EntityMigrationPolicy, _ mapping: EntityMapping) -> Bool {
        guard type(of: policy) == EntityMigrationPolicy.self else { return true }
        guard let destination = destinationEntity(for: mapping) else { return false }
        return relationshipMappings(of: mapping, destination: destination).contains { $0.valueExpression != nil }
    }

    /// The source objects a mapping takes, by ID: every object of its source entity (not of
    /// sub-entities, which have mappings of their own) that matches its source predicate.
    private func sourceObjectIDs(of mapping: EntityMapping) throws -> [ManagedObjectID] {
        guard let name = mapping.sourceEntityName else { return [] }
        var request = FetchRequest<ManagedObjectID>(entityName: name)
        request.includesSubentities = false
        request.predicate = mapping.sourcePredicate
        return try sourceContext.fetch(request)
    }

    /// Checks what the batches' saves left for the end — required relationships, relationship
    /// counts and the objects' own `validateForInsert()` — on every object of the entities that
    /// have such rules, a batch at a time.
    ///
    /// - Throws: ``ObjectValidationError`` with every failure (at most 100).
    private func validateDestination() throws {
        var errors: [ObjectValidationError] = []
        for entity in destinationModel.entities where !entity.isAbstract && Self.hasDeferredRules(entity) {
            var request = FetchRequest<ManagedObjectID>(entityName: entity.name)
            request.includesSubentities = false
            let ids = CompactObjectIDList(try destinationContext.fetch(request))
            let size = max(1, batchSize)
            for start in stride(from: 0, to: ids.count, by: size) where errors.count < 100 {
                for object in destinationContext.materialize(Array(ids[start..<min(start + size, ids.count)])) {
                    errors += ManagedObjectContext.modelRuleErrors(of: object, attributes: false)
                    errors += ManagedObjectContext.hookErrors(of: object) { try $0.validateForInsert() }
                }
                destinationContext.reset()
            }
        }
        if let error = ObjectValidationError.combining(errors) { throw error }
    }

    /// Whether an entity's objects have rules a batch's save does not check: a required
    /// relationship, a relationship count, or a class of the application's own.
    private static func hasDeferredRules(_ entity: EntityDescription) -> Bool {
        ObjectIdentifier(entity.managedObjectClass) != ObjectIdentifier(ManagedObject.self)
            || entity.relationships.contains { !$0.isTransient && (!$0.isOptional || $0.minCount > 0 || $0.maxCount > 0) }
    }

    private func policy(for mapping: EntityMapping) throws -> EntityMigrationPolicy {
        guard let name = mapping.entityMigrationPolicyClassName, !name.isEmpty, name != "NSEntityMigrationPolicy" else {
            if mapping.mappingType == .custom {
                throw MigrationError(.invalidMapping, entity: mapping.name, "a custom entity mapping needs a migration policy class")
            }
            return EntityMigrationPolicy()
        }
        guard let type = EntityMigrationPolicy.policyType(named: name) else {
            throw MigrationError(.invalidMapping, entity: mapping.name, "no migration policy is registered under the name '\(name)'; register it with EntityMigrationPolicy.register(_:named:)")
        }
        return type.init()
    }

    /// Refuses a mapping that names entities the models do not have.
    private func check(_ mapping: MappingModel) throws {
        for entityMapping in mapping.entityMappings {
            if let name = entityMapping.sourceEntityName, sourceModel.entitiesByName[name] == nil, entityMapping.mappingType != .add {
                throw MigrationError(.invalidMapping, entity: entityMapping.name, "the source model has no entity \(name)")
            }
            if let name = entityMapping.destinationEntityName, destinationModel.entitiesByName[name] == nil, entityMapping.mappingType != .remove {
                throw MigrationError(.invalidMapping, entity: entityMapping.name, "the destination model has no entity \(name)")
            }
        }
    }

    private func close(_ coordinator: PersistentStoreCoordinator) throws {
        for store in coordinator.persistentStores { try coordinator.removePersistentStore(store) }
    }

    /// Forgets a migration's state (the associations of every object it made).
    private func reset() {
        cancellation = nil
        currentEntityMapping = nil
        instances = MigrationInstanceMap()
    }
}
