import Foundation
import Synchronization

/// One step of a staged migration: a ``LightweightMigrationStage`` or a ``CustomMigrationStage``.
///
/// For example:
///
/// ```swift
/// let stages: [any MigrationStage] = [
///     LightweightMigrationStage([v1, v2]),
///     CustomMigrationStage(migratingFrom: v2, to: v3),
/// ]
/// let manager = StagedMigrationManager(stages)
/// ```
public protocol MigrationStage: Sendable {
    /// The model versions the stage goes through, oldest first.
    var modelVersions: [ManagedObjectModel] { get }
}

/// A run of model versions each inferred from the one before (Core Data's
/// `NSLightweightMigrationStage`): a store of any of them is carried to the last one version by
/// version.
///
/// For example:
///
/// ```swift
/// LightweightMigrationStage([v1, v2])
/// ```
public struct LightweightMigrationStage: MigrationStage {
    /// The versions given, oldest first; each step between neighbours is inferred.
    public let modelVersions: [ManagedObjectModel]
    /// A label for messages and debugging.
    public var label: String

    /// A stage inferring each step between consecutive `modelVersions` (oldest first) — Core Data's
    /// `NSLightweightMigrationStage(_:)`.
    public init(_ modelVersions: [ManagedObjectModel], label: String = "") {
        self.modelVersions = modelVersions
        self.label = label
    }
}

/// A step from one model version to the next with the application's code around it (Core
/// Data's `NSCustomMigrationStage`): `willMigrateHandler` runs with a container open at the
/// source version, the store is then migrated to the destination version (with a mapping model
/// of the destination's ``ManagedObjectModel/migrationMappingModels`` that fits, else inferred),
/// and `didMigrateHandler` runs with a container open at the destination version. Both read and
/// write with ordinary contexts: ``StagedMigrationManager/container``.
///
/// For example, splitting a full name into two attributes:
///
/// ```swift
/// let split = CustomMigrationStage(migratingFrom: v2, to: v3)   // v3 adds firstName, lastName; keeps name
/// split.didMigrateHandler = { manager, _ in
///     let context = try manager.container.newBackgroundContext()
///     try context.performAndWait {
///         for person in try context.fetch(FetchRequest<ManagedObject>(entityName: "Person")) {
///             let parts = (try person.value(forKey: "name") as? String ?? "").split(separator: " ", maxSplits: 1)
///             try person.setValue(parts.first.map(String.init), forKey: "firstName")
///             try person.setValue(parts.dropFirst().first.map(String.init), forKey: "lastName")
///         }
///         try context.save()
///     }
/// }
/// ```
public final class CustomMigrationStage: MigrationStage, @unchecked Sendable {
    // @unchecked: the handlers are set before the stage is handed to a manager and only read after.

    /// The version the stage starts from.
    public let sourceModel: ManagedObjectModel
    /// The version it ends at.
    public let destinationModel: ManagedObjectModel
    /// A label for messages and debugging.
    public var label: String
    /// Runs before the store is migrated, with ``StagedMigrationManager/container`` at the source version.
    public var willMigrateHandler: (@Sendable (StagedMigrationManager, CustomMigrationStage) throws -> Void)?
    /// Runs after the store is migrated, with ``StagedMigrationManager/container`` at the destination version.
    public var didMigrateHandler: (@Sendable (StagedMigrationManager, CustomMigrationStage) throws -> Void)?

    /// A step from `sourceModel` to `destinationModel`; set its handlers before handing it to a
    /// manager — Core Data's `NSCustomMigrationStage(migratingFrom:to:)`.
    public init(migratingFrom sourceModel: ManagedObjectModel, to destinationModel: ManagedObjectModel, label: String = "") {
        self.sourceModel = sourceModel
        self.destinationModel = destinationModel
        self.label = label
    }

    /// Always two: `sourceModel`, then `destinationModel`.
    public var modelVersions: [ManagedObjectModel] { [sourceModel, destinationModel] }
}

/// Carries a store through a list of stages, as Core Data's `NSStagedMigrationManager`: set it on
/// the store's description (``PersistentStoreDescription/stagedMigrationManager``) and the store
/// is walked from the version that wrote it through every later step when it is loaded. The
/// versions of consecutive stages join (a stage starts where the one before ended); the last
/// version must be the container's model.
///
/// For example:
///
/// ```swift
/// let manager = StagedMigrationManager([
///     LightweightMigrationStage([v1, v2]),
///     CustomMigrationStage(migratingFrom: v2, to: v3),   // with a didMigrateHandler
///     LightweightMigrationStage([v3, v4]),
/// ])
/// var description = PersistentStoreDescription(url: storeURL)
/// description.stagedMigrationManager = manager
/// ```
///
/// Each step is atomic (a crash leaves the store at the version before or after it), so a
/// store interrupted between steps resumes from where it is the next time it is loaded; a
/// custom stage's `willMigrateHandler` then runs again.
public final class StagedMigrationManager: Sendable, Hashable {
    /// The stages, in the order the store goes through them — Core Data's
    /// `NSStagedMigrationManager.stages`.
    public let stages: [any MigrationStage]
    private let current = Mutex<PersistentContainer?>(nil)

    /// A manager walking stores through `stages` — Core Data's `NSStagedMigrationManager(_:)`. The
    /// stages are checked when a store that needs migrating is loaded with it.
    public init(_ stages: [any MigrationStage]) {
        self.stages = stages
    }

    /// The container of the custom stage handler that is running (open at the version the
    /// handler is documented to see); `MigrationError.migrationFailed` outside a handler.
    public var container: PersistentContainer {
        get throws {
            guard let container = current.withLock({ $0 }) else {
                throw MigrationError(.migrationFailed, "the staged migration manager has a container only while a custom stage's handler runs")
            }
            return container
        }
    }

    public static func == (lhs: StagedMigrationManager, rhs: StagedMigrationManager) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    /// One step between two consecutive versions.
    private struct Step {
        let from: ManagedObjectModel
        let to: ManagedObjectModel
        let custom: CustomMigrationStage?
    }

    /// The steps, in order: consecutive versions of lightweight stages, and each custom stage.
    private func steps() throws(MigrationError) -> [Step] {
        var steps: [Step] = []
        var last: ManagedObjectModel?
        for stage in stages {
            let versions = stage.modelVersions
            guard let first = versions.first else { continue }
            if let last, last !== first, last.versionHash != first.versionHash {
                throw MigrationError(.invalidMapping, "a migration stage starts at a version the stage before does not end at")
            }
            if let custom = stage as? CustomMigrationStage {
                steps.append(Step(from: custom.sourceModel, to: custom.destinationModel, custom: custom))
            } else {
                for (from, to) in zip(versions, versions.dropFirst()) { steps.append(Step(from: from, to: to, custom: nil)) }
            }
            last = versions.last
        }
        return steps
    }

    /// Walks the store a description names from the version that wrote it to `model`.
    func migrate(_ description: PersistentStoreDescription, to model: ManagedObjectModel, url: URL, metadata: StoreMetadata) throws {
        let configuration = description.configuration
        if model.isConfiguration(withName: configuration, compatibleWithStoreMetadata: metadata) { return }
        let steps = try steps()
        guard let final = steps.last?.to, final.versionHash == model.versionHash else {
            throw MigrationError(.invalidMapping, url: url, "the last stage of the staged migration does not end at the container's model")
        }
        guard let start = steps.firstIndex(where: { $0.from.isConfiguration(withName: configuration, compatibleWithStoreMetadata: metadata) }) else {
            throw MigrationError(.missingSourceModel, url: url, "no stage of the staged migration starts at the version that wrote the store")
        }
        // Every step's mapping is known before the first step changes anything: a step that cannot
        // be inferred, or a likely entity rename the description refuses, stops the walk at its start.
        var mappings: [(mapping: MappingModel, isInferred: Bool)] = []
        for step in steps[start...] {
            let planned = try mapping(from: step.from, to: step.to)
            if planned.isInferred { try planned.mapping.checkLikelyEntityRenames(url: url, options: description.options) }
            mappings.append(planned)
        }
        for (step, planned) in zip(steps[start...], mappings) {
            if let handler = step.custom?.willMigrateHandler, let stage = step.custom {
                try withContainer(description, model: step.from) { try handler(self, stage) }
            }
            try migrateStep(description, from: step.from, to: step.to, with: planned, url: url)
            if let handler = step.custom?.didMigrateHandler, let stage = step.custom {
                try withContainer(description, model: step.to) { try handler(self, stage) }
            }
        }
    }

    /// The mapping of one step: a mapping model of the destination that fits, else the inferred one.
    private func mapping(from source: ManagedObjectModel, to destination: ManagedObjectModel) throws -> (mapping: MappingModel, isInferred: Bool) {
        if let mapping = destination.migrationMappingModels.first(where: { $0.isMapping(fromSourceModel: source, toDestinationModel: destination) }) {
            return (mapping, false)
        }
        return (try MappingModel.inferredMappingModel(forSourceModel: source, destinationModel: destination), true)
    }

    /// One version to the next: a mapping model by the migration manager, an inferred mapping by the store type's migrator.
    private func migrateStep(
        _ description: PersistentStoreDescription, from source: ManagedObjectModel, to destination: ManagedObjectModel,
        with planned: (mapping: MappingModel, isInferred: Bool), url: URL
    ) throws {
        guard planned.isInferred else {
            try MigrationManager(sourceModel: source, destinationModel: destination)
                .migrateStore(at: url, type: description.type, options: description.options, with: planned.mapping)
            return
        }
        guard let migrator = PersistentStoreRegistry.migrator(for: description.type) else {
            throw MigrationError(.unsupportedStoreType, url: url, "\(description.type.rawValue) stores have no migrator")
        }
        try migrator.migrateStore(StoreMigrationRequest(
            url: url, type: description.type, options: description.options, sourceModel: source, destinationModel: destination, mapping: planned.mapping))
    }

    private func withContainer(_ description: PersistentStoreDescription, model: ManagedObjectModel, _ body: () throws -> Void) throws {
        var stepDescription = description
        stepDescription.stagedMigrationManager = nil
        stepDescription.shouldMigrateStoreAutomatically = false
        let container = PersistentContainer(name: description.url?.deletingPathExtension().lastPathComponent ?? "Migration", managedObjectModel: model)
        container.persistentStoreDescriptions = [stepDescription]
        try container.loadPersistentStores()
        current.withLock { $0 = container }
        defer {
            current.withLock { $0 = nil }
            let coordinator = container.persistentStoreCoordinator
            for store in coordinator.persistentStores { try? coordinator.removePersistentStore(store) }
        }
        try body()
    }
}
