import ArgumentParser
import Foundation
import Stowage

/// `stowage inspect`: what a store holds — its type, metadata, entities with their object
/// counts and the first rows of each — for any store, with or without its model.
struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show a store's type, metadata, entities, object counts and first rows.",
        discussion: """
            The store's type is detected from the file, which is opened read-only and never changed. \
            Without --model, a SQLite store Core Data wrote is read with its own copy of its model \
            (Z_MODELCACHE) when it has one; otherwise the model is inferred from the store itself \
            (inspection mode; see docs/inspection.md): entity and property names as the file \
            records them, made-up names for inverses it does not record. The output says which. \
            A PostgreSQL store is named by its postgres:// URL and needs --model.
            """
    )

    @Argument(help: "The store to inspect: a file, or a postgres:// URL (with --model).")
    var store: String

    @Option(help: "The model the store was written with: `demo`, or a model file: .xcdatamodeld / .xcdatamodel (Xcode) or .momd / .mom (compiled). Default: inferred from the store.")
    var model: ModelChoice?

    @Option(help: "How many objects of each entity to show.")
    var rows: Int = 5

    func validate() throws {
        guard rows >= 0 else { throw ValidationError("--rows must be 0 or more") }
    }

    func run() throws {
        let url = try StoreLocation(store).url
        let onServer = !url.isFileURL
        if onServer && model == nil { throw ValidationError("inspecting a PostgreSQL store needs --model (the model the store was written with)") }
        let type = onServer ? .postgres : try PersistentStoreType(detectingStoreAt: url)
        // With a model given, the inferred one only supplies the metadata as recorded (every key).
        let inferred: InferredModel? = onServer ? nil : model == nil ? try InferredModel(storeAt: url) : try? InferredModel(storeAt: url)
        let managedObjectModel: ManagedObjectModel
        var version: String?
        if let model {
            (managedObjectModel, version) = try model.make(forStoreAt: url, type: type)
        } else if let inferred {
            managedObjectModel = inferred.model
        } else {
            throw ValidationError("the store's model cannot be inferred; pass it with --model")
        }
        let container = PersistentContainer(name: "Inspect", managedObjectModel: managedObjectModel)
        container.persistentStoreDescriptions = [.inspecting(url, type: type)]
        try container.loadPersistentStores()
        guard let loaded = container.persistentStoreCoordinator.persistentStores.first else {
            throw ValidationError("the store could not be loaded")
        }

        var output = InspectionPrinter()
        output.line("Store:    \(StoreLocation.display(url))")
        output.line("Type:     \(type.rawValue)\(onServer ? " (a server's store, named by its URL)" : " (detected from the file's first bytes)")")
        if let model {
            output.line("Model:    \(model.description)\(version.map { ", version \"\($0)\" (the one that wrote the store)" } ?? "") (read-only)")
        } else if inferred?.source == .modelCache {
            output.line("Model:    the store's own copy of its model (Z_MODELCACHE, written by Core Data or Stowage; read-only)")
        } else {
            output.line("Model:    inferred from the store's layout (inspection mode: read-only)")
        }
        output.line("")
        output.section("Metadata", metadata(inferred: inferred, stored: loaded.metadata))
        if model == nil, let notes = inferred?.notes, !notes.isEmpty {
            output.section(inferred?.source == .modelCache ? "Notes on the store's model" : "Notes on the inferred model", notes.map { "- " + $0 })
        }

        let context = container.newBackgroundContext()
        try context.performAndWait {
            output.line("Entities (\(managedObjectModel.entities.count)):")
            for entity in managedObjectModel.entities {
                var count = FetchRequest<ManagedObject>(entityName: entity.name)
                count.includesSubentities = false
                let total = try context.count(for: count)
                let parent = entity.superentity.map { ", sub-entity of \($0.name)" } ?? ""
                output.line("")
                output.line("  \(entity.name): \(total) object\(total == 1 ? "" : "s")\(parent)")
                output.line("    attributes: " + describeAttributes(of: entity))
                output.line("    relationships: " + describeRelationships(of: entity))
                guard rows > 0, total > 0 else { continue }
                var first = FetchRequest<ManagedObject>(entityName: entity.name)
                first.includesSubentities = false
                first.fetchLimit = rows
                for object in try context.fetch(first) {
                    output.line("    " + InspectionPrinter.row(object))
                }
                if total > rows { output.line("    … \(total - rows) more") }
            }
        }
        output.flush()
    }

    private func metadata(inferred: InferredModel?, stored: StoreMetadata) -> [String] {
        var entries: [String: String] = inferred?.metadata ?? [:]
        entries["NSStoreUUID"] = entries["NSStoreUUID"] ?? stored.storeUUID
        entries["NSStoreType"] = entries["NSStoreType"] ?? stored.storeType
        for (entity, hash) in stored.modelVersionHashes where entries["NSStoreModelVersionHashes.\(entity)"] == nil {
            entries["NSStoreModelVersionHashes.\(entity)"] = hash.base64EncodedString()
        }
        for (key, value) in stored.userInfo where entries[key] == nil {
            entries[key] = InspectionPrinter.text(value.anyValue)
        }
        let first = ["NSStoreUUID", "NSStoreType"]
        let sorted = first.filter { entries[$0] != nil } + entries.keys.filter { !first.contains($0) }.sorted()
        return sorted.map { "\($0): \(InspectionPrinter.truncated(entries[$0] ?? "", to: 100))" }
    }

    private func describeAttributes(of entity: EntityDescription) -> String {
        let list = entity.attributes.map { "\($0.name) (\($0.attributeType.name))" }
        return list.isEmpty ? "none" : list.joined(separator: ", ")
    }

    private func describeRelationships(of entity: EntityDescription) -> String {
        let list = entity.relationships.map { relationship in
            let kind = relationship.isToMany ? (relationship.isOrdered ? "ordered to-many" : "to-many") : "to-one"
            let madeUp = relationship.userInfo[InferredModel.madeUpInverseKey] != nil ? ", name made up" : ""
            return "\(relationship.name) → \(relationship.destinationEntityName) (\(kind)\(relationship.inverseName.map { ", inverse " + $0 } ?? ", no inverse")\(madeUp))"
        }
        return list.isEmpty ? "none" : list.joined(separator: ", ")
    }
}
