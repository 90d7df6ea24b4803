import Foundation
import StoreCore

/// The store the crash-safety test's child process (`stowage-save-loop`) saves to in a loop:
/// save number k leaves the counter at k and entries numbered 1…k, so every state the store
/// can be in after a crash is known and checkable.
///
/// For example:
///
/// ```swift
/// let state = try SaveLoopStore.check(url, type: .xml)   // the k of the last complete save
/// ```
public enum SaveLoopStore {
    /// Entries written by the first run, so that every save rewrites a file of some size.
    public static let fillerCount = 300

    public static func makeModel() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Counter") {
                .attribute("value", .integer64, optional: false, defaultValue: 0)
            }
            EntityDescription("Entry") {
                .attribute("number", .integer64, optional: false, defaultValue: 0)
                .attribute("payload", .string)
            }
        }
    }

    /// Entries per batch insert of the `--batch` loop.
    public static let batchSize = 500

    /// The batches the `--batch` loop left, by number, with how many entries each holds
    /// (entries `k * 1000 + 0…499` belong to batch k).
    public static func batches(in context: ManagedObjectContext) throws -> [Int64: Int] {
        var request = FetchRequest<FetchedDictionary>(entityName: "Entry")
        request.propertiesToFetch = ["number"]
        request.predicate = .key("number") >= 1_000
        return try context.performAndWait {
            var counts: [Int64: Int] = [:]
            for row in try context.fetch(request) {
                if let number = row.value("number", as: Int64.self) { counts[number / 1_000, default: 0] += 1 }
            }
            return counts
        }
    }

    public static func payload(_ number: Int64) -> String { "entry \(number) " + String(repeating: "·", count: 120) }

    /// Loads the store and returns the save it holds, checking that it is exactly that save's
    /// state: the counter at k, entries 1…k with their payloads, and the filler; -1 for the
    /// empty store the first run creates before its first save.
    public static func check(_ url: URL, type: PersistentStoreType) throws -> Int64 {
        let container = PersistentContainer(name: "SaveLoop", managedObjectModel: try makeModel())
        container.persistentStoreDescriptions = [PersistentStoreDescription(type: type, url: url)]
        try container.loadPersistentStores()
        let context = container.newBackgroundContext()
        return try context.performAndWait {
            let counters = try context.fetch(FetchRequest<ManagedObject>(entityName: "Counter"))
            if counters.isEmpty, try context.count(for: FetchRequest<ManagedObject>(entityName: "Entry")) == 0 { return -1 }
            guard counters.count == 1, let k = try counters[0].value(forKey: "value") as? Int64 else {
                throw StoreError(.corrupt, url: url, "expected one counter, found \(counters.count)")
            }
            var numbers: [Int64] = []
            for entry in try context.fetch(FetchRequest<ManagedObject>(entityName: "Entry")) {
                guard let number = try entry.value(forKey: "number") as? Int64, try entry.value(forKey: "payload") as? String == payload(number) else {
                    throw StoreError(.corrupt, url: url, "an entry's payload does not match its number")
                }
                numbers.append(number)
            }
            let expected = (0..<Int64(fillerCount)).map { -1 - $0 } + (0..<k).map { $0 + 1 }
            guard numbers.sorted() == expected.sorted() else {
                throw StoreError(.corrupt, url: url, "the counter says \(k) but the entries are not the ones save \(k) leaves")
            }
            return k
        }
    }

    /// The next version of the model, for the migration crash test: `payload` renamed `text`,
    /// `number` widened to a double, a required `flag` added with a default; the first version
    /// is its migration source.
    public static func makeMigratedModel() throws -> ManagedObjectModel {
        let model = try ManagedObjectModel {
            EntityDescription("Counter") {
                .attribute("value", .integer64, optional: false, defaultValue: 0)
            }
            EntityDescription("Entry") {
                .attribute("number", .double, optional: false, defaultValue: 0.0)
                .attribute("text", .string, renamingIdentifier: "payload")
                .attribute("flag", .boolean, optional: false, defaultValue: true)
            }
        }
        model.migrationSourceModels = [try makeModel()]
        return model
    }

    /// The migrated model with a mapping model to reach it (as a `.xcmappingmodel` would give),
    /// so opening an old store migrates it through the migration manager.
    public static func makeMappedMigrationModel() throws -> ManagedObjectModel {
        let model = try makeMigratedModel()
        model.migrationMappingModels = [MappingModel(entityMappings: [
            EntityMapping(name: "CounterToCounter", mappingType: .copy, sourceEntityName: "Counter", destinationEntityName: "Counter"),
            EntityMapping(
                name: "EntryToEntry", mappingType: .transform, sourceEntityName: "Entry", destinationEntityName: "Entry",
                attributeMappings: [
                    PropertyMapping(name: "number", valueExpression: try StoreExpression(format: "$source.number")),
                    PropertyMapping(name: "text", valueExpression: try StoreExpression(format: "$source.payload")),
                    PropertyMapping(name: "flag", valueExpression: try StoreExpression(format: "TRUE")),
                ]),
        ])]
        return model
    }
}
