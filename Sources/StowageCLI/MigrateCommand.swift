import ArgumentParser
import Foundation
import Stowage

/// `stowage migrate`: brings a store saved with an older version of a model package to the
/// current version (or the one `--to` names), in place: with the `.xcmappingmodel` `--mapping`
/// names (or one beside the package made for the two versions) through the migration manager,
/// else by the mapping lightweight migration infers — or, with `--dry-run`, prints the mapping
/// and changes nothing.
struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Migrate a store to another version of its model, in place.",
        discussion: """
            --model names the model package (.xcdatamodeld or .momd); the version that wrote the \
            store is found by the version hashes in the store's metadata. With --mapping (or an \
            .xcmappingmodel beside the package made for the two versions) the mapping model is \
            carried out by the migration manager, with a progress bar; otherwise the mapping is \
            inferred as Core Data infers it, and a change it cannot infer is named and nothing is \
            changed. An entity removed and one added with the same attributes and relationships \
            (a likely rename without a renaming identifier, whose objects would be dropped) is \
            named in the dry run and the log, and refused with --refuse-likely-renames. See \
            docs/migration.md.
            """
    )

    @Argument(help: "The store to migrate (SQLite, XML or binary; its type is detected from the file).")
    var store: String

    @Option(help: "The model package: .xcdatamodeld (Xcode) or .momd (compiled).")
    var model: String

    @Option(name: .customLong("to"), help: "The version to migrate to (default: the package's current version).")
    var version: String?

    @Option(help: "An Xcode mapping model (.xcmappingmodel) to migrate with instead of inferring the mapping.")
    var mapping: String?

    @Flag(help: "Print the mapping and change nothing.")
    var dryRun = false

    @Flag(help: "Refuse to migrate when an entity looks renamed without a renaming identifier (its objects would be dropped).")
    var refuseLikelyRenames = false

    func run() throws {
        let url = URL(fileURLWithPath: store)
        let type = try PersistentStoreType(detectingStoreAt: url)
        let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: type, at: url)
        let bundle = try ManagedObjectModelBundle(contentsOf: URL(fileURLWithPath: model))
        let destination: ModelVersion
        if let version {
            guard let named = bundle.version(named: version) else {
                throw ValidationError("the package has no version '\(version)' (it has: \(bundle.versions.map(\.name).joined(separator: ", ")))")
            }
            destination = named
        } else {
            destination = bundle.currentVersion
        }
        guard let source = bundle.version(compatibleWithStoreMetadata: metadata) else {
            throw ValidationError("no version of \(bundle.url.lastPathComponent) wrote this store (its version hashes match none); nothing was changed")
        }
        guard source.name != destination.name else {
            print("The store is already at version \(destination.name); nothing to do.")
            return
        }
        if let chosen = try mappingModel(from: source, to: destination) {
            try migrate(url, type: type, from: source, to: destination, with: chosen)
            return
        }
        let mapping = try MappingModel.inferredMappingModel(forSourceModel: source.model, destinationModel: destination.model)
        if dryRun {
            print("Would migrate the \(type.rawValue) store \(url.path) from \(source.name) to \(destination.name):")
            print(mapping.description)
            return
        }
        guard let migrator = PersistentStoreRegistry.migrator(for: type) else {
            throw ValidationError("\(type.rawValue) stores cannot be migrated")
        }
        let options: [PersistentStoreOption: StoreValue] = refuseLikelyRenames ? [.refusesLikelyEntityRenames: true] : [:]
        try mapping.checkLikelyEntityRenames(url: url, options: options)
        print("Migrating the \(type.rawValue) store \(url.path) from \(source.name) to \(destination.name)…")
        let started = Date()
        let progress = ProgressReporter(label: "Migrating")
        var request = StoreMigrationRequest(
            url: url, type: type, options: options, sourceModel: source.model, destinationModel: destination.model, mapping: mapping)
        request.progress = { progress.report(fraction: $0) }
        do {
            try migrator.migrateStore(request)
            _ = progress.finish()
        } catch {
            _ = progress.finish()
            throw error
        }
        print("Done in \(String(format: "%.2f", Date().timeIntervalSince(started))) s; the store now fits \(destination.name).")
    }

    /// The mapping model `--mapping` names (it must be made for the two versions), or one found
    /// beside the package for them; `nil` to infer.
    private func mappingModel(from source: ModelVersion, to destination: ModelVersion) throws -> MappingModel? {
        guard let mapping else {
            return destination.model.migrationMappingModels.first { $0.isMapping(fromSourceModel: source.model, toDestinationModel: destination.model) }
        }
        let read = try MappingModel(contentsOf: URL(fileURLWithPath: mapping), sourceModel: source.model, destinationModel: destination.model)
        guard read.isMapping(fromSourceModel: source.model, toDestinationModel: destination.model) else {
            throw ValidationError("\(mapping) does not map \(source.name) to \(destination.name) (an entity it names is missing or changed); nothing was changed")
        }
        return read
    }

    private func migrate(_ url: URL, type: PersistentStoreType, from source: ModelVersion, to destination: ModelVersion, with mapping: MappingModel) throws {
        if dryRun {
            print("Would migrate the \(type.rawValue) store \(url.path) from \(source.name) to \(destination.name) with a mapping model:")
            print(mapping.description)
            return
        }
        print("Migrating the \(type.rawValue) store \(url.path) from \(source.name) to \(destination.name) with a mapping model…")
        let started = Date()
        let progress = ProgressReporter(label: "Migrating")
        let manager = MigrationManager(sourceModel: source.model, destinationModel: destination.model)
        manager.progressHandler = { progress.report(fraction: $0) }
        do {
            try manager.migrateStore(at: url, type: type, with: mapping)
            _ = progress.finish()
        } catch {
            _ = progress.finish()
            throw error
        }
        print("Done in \(String(format: "%.2f", Date().timeIntervalSince(started))) s; the store now fits \(destination.name).")
    }
}
