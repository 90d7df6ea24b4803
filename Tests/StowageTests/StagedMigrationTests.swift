import Foundation
import StoreCore
import StoreTestSupport
import XCTest

/// Staged migration on load: V1 → V2 (lightweight) → V3 (custom: a full name split in two with
/// an ordinary context) → V4 (lightweight), on every file-backed store type.
final class StagedMigrationTests: XCTestCase {
    static func person(_ properties: EntityProperties) throws -> ManagedObjectModel {
        try ManagedObjectModel { EntityDescription("Person") { properties } }
    }

    static func versions() throws -> [ManagedObjectModel] {
        [
            try person(.attribute("name", .string)),
            try person(.attribute("name", .string).attribute("email", .string)),
            try person(.attribute("name", .string).attribute("email", .string).attribute("firstName", .string).attribute("lastName", .string)),
            try person(.attribute("email", .string).attribute("firstName", .string).attribute("lastName", .string)),
        ]
    }

    static func manager(_ v: [ManagedObjectModel], log: Counter) -> StagedMigrationManager {
        let split = CustomMigrationStage(migratingFrom: v[1], to: v[2], label: "split names")
        split.willMigrateHandler = { manager, _ in
            let context = try manager.container.newBackgroundContext()
            let count = try context.performAndWait { try context.count(for: FetchRequest<ManagedObject>(entityName: "Person")) }
            for _ in 0..<count { log.increment() }
        }
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
        return StagedMigrationManager([LightweightMigrationStage([v[0], v[1]]), split, LightweightMigrationStage([v[2], v[3]])])
    }

    func testAStoreWalksEveryStageInOrder() throws {
        for backend in StoreBackend.all where backend.isFileBacked {
            let v = try Self.versions()
            let directory = try TemporaryDirectory()
            let description = backend.description(named: "People", in: directory)
            let old = PersistentContainer(name: "People", managedObjectModel: v[0])
            old.persistentStoreDescriptions = [description]
            try old.loadPersistentStores()
            let writer = old.newBackgroundContext()
            try writer.performAndWait {
                for name in ["Ada Lovelace", "Grace Brewster Hopper", "Plato"] {
                    try writer.insertNewObject(forEntityName: "Person").setValue(name, forKey: "name")
                }
                try writer.save()
            }
            for store in old.persistentStoreCoordinator.persistentStores { try old.persistentStoreCoordinator.removePersistentStore(store) }

            let log = Counter()
            var staged = description
            staged.stagedMigrationManager = Self.manager(v, log: log)
            let container = PersistentContainer(name: "People", managedObjectModel: v[3])
            container.persistentStoreDescriptions = [staged]
            try container.loadPersistentStores()
            XCTAssertEqual(log.value, 3, "\(backend): willMigrate saw the store at V2")
            let context = container.newBackgroundContext()
            try context.performAndWait {
                var request = FetchRequest<ManagedObject>(entityName: "Person")
                request.sortDescriptors = [.ascending("firstName")]
                let people = try context.fetch(request)
                XCTAssertEqual(try people.map { try $0.value(forKey: "firstName") as? String }, ["Ada", "Grace", "Plato"], "\(backend)")
                XCTAssertEqual(try people.map { try $0.value(forKey: "lastName") as? String }, ["Lovelace", "Brewster Hopper", nil], "\(backend)")
            }
            let store = try XCTUnwrap(container.persistentStoreCoordinator.persistentStores.first)
            XCTAssertTrue(v[3].isConfiguration(withName: nil, compatibleWithStoreMetadata: store.metadata), "\(backend)")
            try container.persistentStoreCoordinator.removePersistentStore(store)

            // Loaded again, the store is at V4: no stage runs.
            let again = PersistentContainer(name: "People", managedObjectModel: v[3])
            again.persistentStoreDescriptions = [staged]
            try again.loadPersistentStores()
            XCTAssertEqual(log.value, 3, "\(backend)")
        }
    }

    func testStagesThatDoNotReachTheModelAreRefusedWithoutChanges() throws {
        let v = try Self.versions()
        let directory = try TemporaryDirectory()
        let description = StoreBackend.sqlite.description(named: "People", in: directory)
        let old = PersistentContainer(name: "People", managedObjectModel: v[0])
        old.persistentStoreDescriptions = [description]
        try old.loadPersistentStores()
        for store in old.persistentStoreCoordinator.persistentStores { try old.persistentStoreCoordinator.removePersistentStore(store) }
        let url = try XCTUnwrap(description.url)
        let before = try Data(contentsOf: url)
        var staged = description
        staged.stagedMigrationManager = StagedMigrationManager([LightweightMigrationStage([v[0], v[1]])])
        let container = PersistentContainer(name: "People", managedObjectModel: v[3])
        container.persistentStoreDescriptions = [staged]
        XCTAssertThrowsError(try container.loadPersistentStores()) { error in
            XCTAssertEqual((error as? MigrationError)?.code, .invalidMapping, "\(error)")
        }
        XCTAssertEqual(try Data(contentsOf: url), before)
    }
}
