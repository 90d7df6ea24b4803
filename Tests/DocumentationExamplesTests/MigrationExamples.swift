import Foundation
import Stowage
import XCTest

/// Migration.md: versions in code, metadata, lightweight migration on load, the inferred mapping,
/// a mapping model run in place, staged migration.
final class MigrationExamples: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = try ExampleStack.makeDirectory()
    }

    override func tearDown() {
        ExampleStack.removeDirectory(directory)
        super.tearDown()
    }

    /// Saves the given objects (by key) of `entityName` into a new store at `url` with `model`, and closes it.
    private func makeStore(at url: URL, model: ManagedObjectModel, entityName: String, objects: [[String: Any]]) throws {
        let container = PersistentContainer(name: "Old", managedObjectModel: model)
        container.persistentStoreDescriptions = [PersistentStoreDescription(url: url)]
        try container.loadPersistentStores()
        let context = container.newBackgroundContext()
        try context.performAndWait {
            for values in objects {
                let object = try context.insertNewObject(forEntityName: entityName)
                for (key, value) in values { try object.setValue(value, forKey: key) }
            }
            try context.save()
        }
        ExampleStack.close(container)
    }

    func testLightweightMigrationThenAMappingModel() throws {
        let storeURL = directory.appendingPathComponent("Notes.sqlite")

        let v1 = try ManagedObjectModel {
            EntityDescription("Note") {
                .attribute("body", .string)
                .attribute("rank", .integer16)
            }
        }
        let v2 = try ManagedObjectModel {
            EntityDescription("Memo", renamingIdentifier: "Note") {
                .attribute("text", .string, renamingIdentifier: "body")
                .attribute("rank", .integer64)
                .attribute("pinned", .boolean, optional: false, defaultValue: false)
            }
        }
        v2.migrationSourceModels = [v1]

        try makeStore(at: storeURL, model: v1, entityName: "Note", objects: [["body": "Buy milk", "rank": 3]])

        let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(at: storeURL)
        print(metadata.storeType)                                                        // sqlite
        print(v1.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))  // true
        print(v2.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))  // false: needs migrating

        XCTAssertEqual(metadata.storeType, "sqlite")
        XCTAssertTrue(v1.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
        XCTAssertFalse(v2.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))

        let container = PersistentContainer(name: "Notes", managedObjectModel: v2)
        container.persistentStoreDescriptions = [PersistentStoreDescription(url: storeURL)]
        try container.loadPersistentStores()          // the v1 store is migrated to v2 in place
        let memos = try container.viewContext.fetch(FetchRequest<ManagedObject>(entityName: "Memo"))
        print(try memos.map { try $0.value(forKey: "text") as? String ?? "" })   // ["Buy milk"]

        XCTAssertEqual(try memos.map { try $0.value(forKey: "text") as? String ?? "" }, ["Buy milk"])
        XCTAssertEqual(try memos.first?.value(forKey: "rank") as? Int64, 3)
        XCTAssertEqual(try memos.first?.value(forKey: "pinned") as? Bool, false, "a new attribute takes its default")

        let inferred = try MappingModel.inferredMappingModel(forSourceModel: v1, destinationModel: v2)
        print(inferred.entityMapping(forDestinationEntity: "Memo")?.sourceEntityName ?? "")   // Note
        print(inferred)                      // each entity mapping, and where each property comes from

        XCTAssertEqual(inferred.entityMapping(forDestinationEntity: "Memo")?.sourceEntityName, "Note")

        // The mapping model runs on a closed store.
        ExampleStack.close(container)

        let v3 = try ManagedObjectModel {
            EntityDescription("Memo") {
                .attribute("text", .string)
                .attribute("shouted", .string)
            }
        }
        let mapping = MappingModel(entityMappings: [
            EntityMapping(name: "MemoToMemo", mappingType: .transform, sourceEntityName: "Memo", destinationEntityName: "Memo",
                          attributeMappings: [
                              .from("text", to: "text"),
                              PropertyMapping(name: "shouted", valueExpression: try StoreExpression(format: "uppercase:($source.text)")),
                          ]),
        ])
        let manager = MigrationManager(sourceModel: v2, destinationModel: v3)
        try manager.migrateStore(at: storeURL, type: .sqlite, with: mapping)

        XCTAssertEqual(manager.migrationProgress, 1)
        let migrated = PersistentContainer(name: "Notes", managedObjectModel: v3)
        migrated.persistentStoreDescriptions = [PersistentStoreDescription(url: storeURL)]
        try migrated.loadPersistentStores()
        let memo = try XCTUnwrap(try migrated.viewContext.fetch(FetchRequest<ManagedObject>(entityName: "Memo")).first)
        XCTAssertEqual(try memo.value(forKey: "text") as? String, "Buy milk")
        XCTAssertEqual(try memo.value(forKey: "shouted") as? String, "BUY MILK")
        ExampleStack.close(migrated)
    }

    func testAChangeThatCannotBeInferred() throws {
        let before = try ManagedObjectModel { EntityDescription("Note") { .attribute("rank", .string) } }
        let after = try ManagedObjectModel { EntityDescription("Note") { .attribute("rank", .integer64) } }
        XCTAssertThrowsError(try MappingModel.inferredMappingModel(forSourceModel: before, destinationModel: after)) { error in
            XCTAssertEqual((error as? MigrationError)?.code, .cannotInferMapping, "\(error)")
        }
    }

    func testStagedMigration() throws {
        let peopleURL = directory.appendingPathComponent("People.sqlite")
        let people1 = try ManagedObjectModel { EntityDescription("Person") { .attribute("name", .string) } }
        let people2 = try ManagedObjectModel {
            EntityDescription("Person") { .attribute("name", .string).attribute("email", .string) }
        }
        let people3 = try ManagedObjectModel {
            EntityDescription("Person") {
                .attribute("name", .string).attribute("email", .string).attribute("firstName", .string).attribute("lastName", .string)
            }
        }
        try makeStore(at: peopleURL, model: people1, entityName: "Person", objects: [["name": "Ada Lovelace"], ["name": "Plato"]])

        let split = CustomMigrationStage(migratingFrom: people2, to: people3)     // people3 adds firstName and lastName
        split.didMigrateHandler = { manager, _ in
            let context = try manager.container.newBackgroundContext()
            try context.performAndWait {
                for person in try context.fetch(FetchRequest<ManagedObject>(entityName: "Person")) {
                    let parts = (try person.value(forKey: "name") as? String ?? "").split(separator: " ", maxSplits: 1).map(String.init)
                    try person.setValue(parts.first, forKey: "firstName")
                    try person.setValue(parts.count > 1 ? parts[1] : nil, forKey: "lastName")
                }
                try context.save()
            }
        }
        var staged = PersistentStoreDescription(url: peopleURL)
        staged.stagedMigrationManager = StagedMigrationManager([LightweightMigrationStage([people1, people2]), split])
        let people = PersistentContainer(name: "People", managedObjectModel: people3)
        people.persistentStoreDescriptions = [staged]
        try people.loadPersistentStores()             // a people1 store walks people1 → people2 → people3

        var request = FetchRequest<ManagedObject>(entityName: "Person")
        request.sortDescriptors = [.ascending("name")]
        let persons = try people.viewContext.fetch(request)
        XCTAssertEqual(try persons.map { try $0.value(forKey: "firstName") as? String }, ["Ada", "Plato"])
        XCTAssertEqual(try persons.map { try $0.value(forKey: "lastName") as? String }, ["Lovelace", nil])
        ExampleStack.close(people)
    }
}
