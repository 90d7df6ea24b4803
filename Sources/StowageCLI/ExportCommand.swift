import ArgumentParser
import Foundation
import Stowage

/// `stowage export`: copies a store into a new store of another type — the everyday use is
/// turning a SQLite store into XML to read it.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Copy a store into a new store of another type (sqlite, xml, binary, postgres).",
        discussion: """
            The input's type is detected from the file. --model names the model the store was \
            written with: `demo` (`stowage demo --path FILE`), an Xcode model file (.xcdatamodeld, \
            .xcdatamodel) or a compiled one from an app bundle (.momd, .mom). Without it, the \
            store's own model is used as `stowage inspect` finds it: a Core Data store's cached \
            copy (Z_MODELCACHE), or a model inferred from the store's layout (docs/inspection.md).
            A PostgreSQL store is named by its URL, as input (with --model) or output: \
            `stowage export app.sqlite --to postgres 'postgres://user@host/db?schema=app'` moves \
            an app's store onto a server (the schema must hold no store yet).
            """
    )

    @Argument(help: "The store to read (it is opened read-only).")
    var store: String

    @Option(name: .customLong("to"), help: "The type of the new store: sqlite, xml, binary or postgres.")
    var type: StoreKind

    @Argument(help: "Where to write the new store (nothing may exist there yet): a file, or a postgres:// URL.")
    var output: String

    @Option(help: "The model the store was written with: `demo`, or a model file: .xcdatamodeld / .xcdatamodel (Xcode) or .momd / .mom (compiled). Default: the store's own (cached or inferred).")
    var model: ModelChoice?

    func run() throws {
        let input = try StoreLocation(store).url
        let destination = try StoreLocation(output).url
        if (type == .postgres) != !destination.isFileURL {
            throw ValidationError(type == .postgres ? "--to postgres needs a postgres:// URL to write to" : "a postgres:// URL needs --to postgres")
        }
        let sourceType = input.isFileURL ? try PersistentStoreType(detectingStoreAt: input) : .postgres
        let managedObjectModel: ManagedObjectModel
        var description: PersistentStoreDescription
        if !input.isFileURL {
            guard let model else { throw ValidationError("exporting from PostgreSQL needs --model (the model the store was written with)") }
            managedObjectModel = try model.make(forStoreAt: input, type: sourceType).model
            description = PersistentStoreDescription(type: .postgres, url: input)
            description.isReadOnly = true
            description.shouldMigrateStoreAutomatically = false
        } else if let model {
            managedObjectModel = try model.make(forStoreAt: input, type: sourceType).model
            description = PersistentStoreDescription(type: sourceType, url: input)
            description.isReadOnly = true
            description.shouldMigrateStoreAutomatically = false
        } else {
            // Inspection mode: the store's cached model, or one inferred from its layout.
            let inferred = try InferredModel(storeAt: input)
            managedObjectModel = inferred.model
            description = .inspecting(input, type: sourceType)
            print("Model: \(inferred.source == .modelCache ? "the store's own copy of its model (Z_MODELCACHE)" : "inferred from the store's layout") — pass --model for the exact one")
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: managedObjectModel)
        let source = try coordinator.addPersistentStore(with: description)
        let progress = ProgressReporter(label: "Copying \(sourceType.rawValue) → \(type.storeType.rawValue)")
        let exported = try coordinator.migratePersistentStore(source, to: destination, type: type.storeType) { progress.report($0) }
        let copied = progress.finish()
        print("Copied \(copied.formatted()) objects from the \(sourceType.rawValue) store \(StoreLocation.display(input)) into a new \(exported.type.rawValue) store at \(StoreLocation.display(destination)).")
    }
}

/// The store types `export` can write.
enum StoreKind: String, ExpressibleByArgument, CaseIterable {
    case sqlite, xml, binary, postgres

    var storeType: PersistentStoreType {
        switch self {
        case .sqlite: .sqlite
        case .xml: .xml
        case .binary: .binary
        case .postgres: .postgres
        }
    }
}

/// The models the tool knows: `demo`, or a model file — Xcode's (`.xcdatamodeld` package,
/// `.xcdatamodel` folder, or its `contents`) or a compiled one (`.momd` bundle, `.mom` file).
enum ModelChoice: ExpressibleByArgument, CustomStringConvertible {
    case demo
    case file(String)

    init?(argument: String) {
        self = argument == "demo" ? .demo : .file(argument)
    }

    var description: String {
        switch self {
        case .demo: "demo"
        case .file(let path): path
        }
    }

    func make() throws -> ManagedObjectModel {
        switch self {
        case .demo: return try DemoModel.make()
        case .file(let path): return try ManagedObjectModel(contentsOf: URL(fileURLWithPath: path))
        }
    }

    /// The model to open the store at `url` with: for a file holding several versions, the
    /// version whose hashes the store recorded, and its name; the current version (and no name)
    /// when none matches, so opening reports the mismatch.
    func make(forStoreAt url: URL, type: PersistentStoreType) throws -> (model: ManagedObjectModel, version: String?) {
        guard case .file(let path) = self else { return (try make(), nil) }
        let bundle = try ManagedObjectModelBundle(contentsOf: URL(fileURLWithPath: path))
        guard bundle.versions.count > 1 else { return (bundle.currentModel, nil) }
        let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: type, at: url)
        let version = bundle.version(compatibleWithStoreMetadata: metadata)
        return (version?.model ?? bundle.currentModel, version?.name)
    }
}
