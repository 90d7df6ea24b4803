import ArgumentParser
import Foundation
import Stowage

/// `stowage migrate`: brings a store saved with an older version of a model package to the
/// current version (or the one `--to` names), in place, by the mapping lightweight migration
/// infers — or, with `--dry-run`, prints that mapping and changes nothing.
struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Migrate a store to another version of its model, in place (lightweight migration).",
        discussion: """
            --model names the model package (.xcdatamodeld or .momd); the version that wrote the \
            store is found by the version hashes in the store's metadata. The mapping is inferred \
            as Core Data infers it; a change it cannot infer is named and nothing is changed. \
            See docs/migration.md.
            """
    )

    @Argument(help: "The store to migrate (SQLite, XML or binary; its type is detected from the file).")
    var store: String

    @Option(help: "The model package: .xcdatamodeld (Xcode) or .momd (compiled).")
    var model: String

    @Option(name: .customLong("to"), help: "The version to migrate to (default: the package's current version).")
    var version: String?

    @Flag(help: "Print the inferred mapping and change nothing.")
    var dryRun = false

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
        let mapping = try MappingModel.inferredMappingModel(forSourceModel: source.model, destinationModel: destination.model)
        if dryRun {
            print("Would migrate the \(type.rawValue) store \(url.path) from \(source.name) to \(destination.name):")
            print(mapping.description)
            return
        }
        guard let migrator = PersistentStoreRegistry.migrator(for: type) else {
            throw ValidationError("\(type.rawValue) stores cannot be migrated")
        }
        print("Migrating the \(type.rawValue) store \(url.path) from \(source.name) to \(destination.name)…")
        let started = Date()
        try migrator.migrateStore(StoreMigrationRequest(
            url: url, type: type, options: [:], sourceModel: source.model, destinationModel: destination.model, mapping: mapping))
        print("Done in \(String(format: "%.2f", Date().timeIntervalSince(started))) s; the store now fits \(destination.name).")
    }
}
