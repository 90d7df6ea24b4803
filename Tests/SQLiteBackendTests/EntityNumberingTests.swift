import XCTest
@testable import SQLiteBackend
import StoreCore
import StoreSQL
import StoreTestSupport

/// A new store numbers its entities as Core Data does (``SQLSchema/coreDataEntityNumbers(of:)``):
/// depth-first through the inheritance tree, roots and siblings in case-insensitive name order;
/// an existing store keeps the numbers its `Z_PRIMARYKEY` holds.
final class EntityNumberingTests: XCTestCase {
    /// The store Core Data wrote for this model (alemar11/CoreDataPlus's `SampleModel_V1.sqlite`)
    /// has `Car` 1, `SportCar` 2 (super 1), `ExpensiveSportCar` 3 (super 2), `Person` 4.
    private func carModel() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Person") { .attribute("firstName", .string) }
            EntityDescription("ExpensiveSportCar", parent: "SportCar") { .attribute("isLimitedEdition", .boolean) }
            EntityDescription("Car") { .attribute("maker", .string) }
            EntityDescription("SportCar", parent: "Car") {}
        }
    }

    func testEntitiesAreNumberedDepthFirstThroughTheInheritanceTree() throws {
        let numbers = SQLSchema.coreDataEntityNumbers(of: try carModel())
        XCTAssertEqual(numbers, ["Car": 1, "SportCar": 2, "ExpensiveSportCar": 3, "Person": 4])
    }

    func testRootsAndSiblingsAreInCaseInsensitiveNameOrder() throws {
        // Core Data's SyncMetadata store (fixture SyncMetadata_V3.sqlite): SyncableSettingsMetadata 1,
        // SyncFeatureEntity 2 — "a" before "f" once case is folded, though "F" sorts before "a" by bytes.
        let model = try ManagedObjectModel {
            EntityDescription("SyncFeatureEntity") { .attribute("name", .string) }
            EntityDescription("SyncableSettingsMetadata") { .attribute("key", .string) }
            EntityDescription("Zoo") {}
            EntityDescription("beta", parent: "Zoo") {}
            EntityDescription("Alpha", parent: "Zoo") {}
            EntityDescription("Gamma", parent: "Zoo") {}
            EntityDescription("delta", parent: "beta") {}
        }
        XCTAssertEqual(SQLSchema.coreDataEntityNumbers(of: model), [
            "SyncableSettingsMetadata": 1, "SyncFeatureEntity": 2,
            "Zoo": 3, "Alpha": 4, "beta": 5, "delta": 6, "Gamma": 7,
        ])
    }

    /// Every Apple-written SQLite store in the fixtures — those without a model Stowage can read
    /// too — is numbered by the rule: a model with its `Z_PRIMARYKEY`'s entities and inheritance
    /// is numbered as the store is.
    func testEveryAppleWrittenFixtureStoreIsNumberedByTheRule() throws {
        guard CoreDataFixtures.arePresent else { throw XCTSkip("the Core Data fixtures are not present beside the repository") }
        let stores = [
            "bignerdranch__CoreDataStack/TestModel.sqlite", "duckduckgo__BrowserServicesKit/Bookmarks_V1.sqlite",
            "duckduckgo__BrowserServicesKit/Bookmarks_V2.sqlite", "duckduckgo__BrowserServicesKit/Bookmarks_V3.sqlite",
            "duckduckgo__BrowserServicesKit/Bookmarks_V4.sqlite", "duckduckgo__BrowserServicesKit/Bookmarks_V5.sqlite",
            "duckduckgo__BrowserServicesKit/SyncMetadata_V3.sqlite", "fruitsamples__iPhoneCoreDataRecipes/Recipes.sqlite",
            "gilpa__iphone_sqlite_test/CoreDataBooks.sqlite", "kean__Pulse/logs-package.pulse/logs.sqlite", "kean__Pulse/bigstore.pulse",
        ]
        var entities = 0
        for store in stores {
            let directory = try TemporaryDirectory()
            let copy = try XCTUnwrap(try CoreDataFixtures.copyOfStore(store, into: directory.url), store)
            let connection = try SQLiteConnection(path: copy.path, mode: .readOnly, log: .disabled)
            let rows = try PrimaryKeyTable.read(on: connection, url: copy)
            let names = Dictionary(uniqueKeysWithValues: rows.map { ($0.number, $0.name) })
            let model = try ManagedObjectModel {
                for row in rows { EntityDescription(row.name, parent: names[row.superNumber]) {} }
            }
            let stored = Dictionary(uniqueKeysWithValues: rows.map { ($0.name, $0.number) })
            XCTAssertEqual(SQLSchema.coreDataEntityNumbers(of: model), stored, store)
            entities += rows.count
        }
        XCTAssertEqual(entities, 19, "every entity of every store was compared")
    }

    func testANewStoreRecordsCoreDatasNumbersAndSuperEntities() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("cars.sqlite")
        let container = try TestStack.sqliteContainer(try carModel(), at: url)
        try container.persistentStoreCoordinator.persistentStores.forEach { try container.persistentStoreCoordinator.removePersistentStore($0) }
        let connection = try SQLiteConnection(path: url.path, mode: .readOnly, log: .disabled)
        let rows = try PrimaryKeyTable.read(on: connection, url: url).map { "\($0.number) \($0.name) \($0.superNumber)" }
        XCTAssertEqual(rows, ["1 Car 0", "2 SportCar 1", "3 ExpensiveSportCar 2", "4 Person 0"])
    }

    /// A store numbered otherwise (an earlier Stowage numbered by byte order) keeps its numbers.
    func testAnExistingStoreKeepsItsStoredNumbers() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("cars.sqlite")
        let model = try carModel()
        let container = try TestStack.sqliteContainer(model, at: url)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let car = ManagedObject(entity: try XCTUnwrap(model.entitiesByName["ExpensiveSportCar"]), insertInto: context)
            try car.setValue("BMW", forKey: "maker")
            try context.save()
        }
        try container.persistentStoreCoordinator.persistentStores.forEach { try container.persistentStoreCoordinator.removePersistentStore($0) }
        // Renumber as byte order would: Car 1, ExpensiveSportCar 2, Person 3, SportCar 4.
        let writer = try SQLiteConnection(path: url.path, mode: .readWrite, log: .disabled)
        try writer.transaction {
            try writer.execute("UPDATE Z_PRIMARYKEY SET Z_ENT = Z_ENT + 100")
            try writer.execute("UPDATE Z_PRIMARYKEY SET Z_ENT = 2, Z_SUPER = 4 WHERE Z_NAME = 'ExpensiveSportCar'")
            try writer.execute("UPDATE Z_PRIMARYKEY SET Z_ENT = 4, Z_SUPER = 1 WHERE Z_NAME = 'SportCar'")
            try writer.execute("UPDATE Z_PRIMARYKEY SET Z_ENT = 3 WHERE Z_NAME = 'Person'")
            try writer.execute("UPDATE Z_PRIMARYKEY SET Z_ENT = 1 WHERE Z_NAME = 'Car'")
            try writer.execute("UPDATE ZCAR SET Z_ENT = 2")
        }
        let reopened = try TestStack.sqliteContainer(model, at: url)
        let reader = reopened.newBackgroundContext()
        try reader.performAndWait {
            let cars = try reader.fetch(FetchRequest<ManagedObject>(entityName: "SportCar"))
            XCTAssertEqual(cars.map(\.entity.name), ["ExpensiveSportCar"], "found by the stored number 2")
            XCTAssertEqual(try cars.first?.value(forKey: "maker") as? String, "BMW")
        }
    }
}
