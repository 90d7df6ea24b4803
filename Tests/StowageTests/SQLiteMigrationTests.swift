import Foundation
@testable import SQLiteBackend
import StoreCore
import StoreTestSupport
import XCTest

/// What an in-place SQLite migration does beyond carrying rows: entity hierarchy changes (two
/// former root tables joined under a new parent, keys kept apart), new uniqueness constraints
/// and indexes created, and a value the new layout cannot hold refusing the whole migration
/// with the file left exactly as it was.
final class SQLiteMigrationTests: XCTestCase {
    private func files(_ url: URL) throws -> [Data] {
        try ["", "-wal"].compactMap { suffix in
            let file = URL(fileURLWithPath: url.path + suffix)
            return FileManager.default.fileExists(atPath: file.path) ? try Data(contentsOf: file) : nil
        }
    }

    private func save(_ model: ManagedObjectModel, at url: URL, _ body: (ManagedObjectContext) throws -> Void) throws {
        let container = PersistentContainer(name: "Zoo", managedObjectModel: model)
        container.persistentStoreDescriptions = [PersistentStoreDescription(type: .sqlite, url: url)]
        try container.loadPersistentStores()
        let context = container.newBackgroundContext()
        try context.performAndWait {
            try body(context)
            try context.save()
        }
        for store in container.persistentStoreCoordinator.persistentStores { try container.persistentStoreCoordinator.removePersistentStore(store) }
    }

    private func open(_ model: ManagedObjectModel, at url: URL) throws -> ManagedObjectContext {
        let container = PersistentContainer(name: "Zoo", managedObjectModel: model)
        container.persistentStoreDescriptions = [PersistentStoreDescription(type: .sqlite, url: url)]
        try container.loadPersistentStores()
        return container.newBackgroundContext()
    }

    func testTwoRootEntitiesBecomeSubentitiesOfANewParent() throws {
        let v1 = try ManagedObjectModel {
            EntityDescription("Cat") {
                .attribute("name", .string)
                .toOne("owner", destination: "Owner", inverse: "cats")
            }
            EntityDescription("Dog") {
                .attribute("name", .string)
                .toMany("fans", destination: "Owner", inverse: "favorite")
            }
            EntityDescription("Owner") {
                .attribute("name", .string)
                .toOne("favorite", destination: "Dog", inverse: "fans")
                .toMany("cats", destination: "Cat", inverse: "owner")
            }
        }
        let v2 = try ManagedObjectModel {
            EntityDescription("Animal", isAbstract: true) { .attribute("name", .string) }
            EntityDescription("Cat", parent: "Animal") { .toOne("owner", destination: "Owner", inverse: "cats") }
            EntityDescription("Dog", parent: "Animal") { .toMany("fans", destination: "Owner", inverse: "favorite") }
            EntityDescription("Owner") {
                .attribute("name", .string)
                .toOne("favorite", destination: "Dog", inverse: "fans")
                .toMany("cats", destination: "Cat", inverse: "owner")
            }
        }
        v2.migrationSourceModels = [v1]
        let directory = try TemporaryDirectory()
        let url = directory.file("Zoo.sqlite")
        try save(v1, at: url) { context in
            let owner = try context.insertNewObject(forEntityName: "Owner")
            try owner.setValue("Ann", forKey: "name")
            var cats: [ManagedObject] = []
            for name in ["Tom", "Kit"] {
                let cat = try context.insertNewObject(forEntityName: "Cat")
                try cat.setValue(name, forKey: "name")
                cats.append(cat)
            }
            try owner.setValue(Set(cats), forKey: "cats")
            for name in ["Rex", "Fido", "Spot"] {
                let dog = try context.insertNewObject(forEntityName: "Dog")
                try dog.setValue(name, forKey: "name")
                if name == "Fido" { try owner.setValue(dog, forKey: "favorite") }
            }
        }
        let context = try open(v2, at: url)
        try context.performAndWait {
            let animals = try context.fetch(FetchRequest<ManagedObject>(entityName: "Animal"))
            XCTAssertEqual(try Set(animals.map { try $0.value(forKey: "name") as? String ?? "" }), ["Tom", "Kit", "Rex", "Fido", "Spot"])
            XCTAssertEqual(Set(animals.map(\.objectID)).count, 5, "every animal has its own key in the shared table")
            XCTAssertEqual(try context.count(for: FetchRequest<ManagedObject>(entityName: "Dog")), 3)
            let owner = try XCTUnwrap(try context.fetch(FetchRequest<ManagedObject>(entityName: "Owner")).first)
            let favorite = try XCTUnwrap(try owner.value(forKey: "favorite") as? ManagedObject)
            XCTAssertEqual(try favorite.value(forKey: "name") as? String, "Fido")
            let cats = try XCTUnwrap(try owner.value(forKey: "cats") as? Set<ManagedObject>)
            XCTAssertEqual(try Set(cats.map { try $0.value(forKey: "name") as? String ?? "" }), ["Tom", "Kit"])
            // New objects get keys no existing one has.
            let cat = try context.insertNewObject(forEntityName: "Cat")
            try cat.setValue("New", forKey: "name")
            try context.save()
            XCTAssertEqual(try context.count(for: FetchRequest<ManagedObject>(entityName: "Animal")), 6)
        }
    }

    func testNewConstraintsAndIndexesAreCreatedAndAValueThatDoesNotFitChangesNothing() throws {
        let v1 = try ManagedObjectModel {
            EntityDescription("Item") {
                .attribute("code", .string)
                .attribute("count", .integer64)
            }
        }
        func v2(narrowing: Bool) throws -> ManagedObjectModel {
            let model = try ManagedObjectModel {
                EntityDescription("Item", uniquenessConstraints: [["code"]], indexes: [FetchIndexDescription(name: "byCount", elements: [.init("count")])]) {
                    .attribute("code", .string)
                    .attribute("count", narrowing ? .integer16 : .integer64)
                }
            }
            model.migrationSourceModels = [v1]
            return model
        }
        let directory = try TemporaryDirectory()
        let url = directory.file("Items.sqlite")
        try save(v1, at: url) { context in
            for (code, count) in [("a", Int64(1)), ("b", 100_000)] {
                let item = try context.insertNewObject(forEntityName: "Item")
                try item.setValue(code, forKey: "code")
                try item.setValue(count, forKey: "count")
            }
        }
        let before = try files(url)
        XCTAssertThrowsError(try open(try v2(narrowing: true), at: url)) { error in
            XCTAssertEqual((error as? MigrationError)?.code, .migrationFailed, "\(error)")
            XCTAssertTrue("\(error)".contains("Integer 16"), "\(error)")
        }
        XCTAssertEqual(try files(url), before, "a migration that fails leaves the file as it was")

        let context = try open(try v2(narrowing: false), at: url)
        let connection = try SQLiteConnection(path: url.path, mode: .readOnly, log: .disabled)
        var indexes: [String] = []
        try connection.query("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'ZITEM'") { row in indexes.append(row.string(at: 0) ?? "") }
        XCTAssertTrue(indexes.contains("Z_Item_UNIQUE_code"), "\(indexes)")
        XCTAssertTrue(indexes.contains("Z_Item_byCount"), "\(indexes)")
        try context.performAndWait {
            let duplicate = try context.insertNewObject(forEntityName: "Item")
            try duplicate.setValue("a", forKey: "code")
            XCTAssertThrowsError(try context.save(), "the new uniqueness constraint holds")
        }
    }

    /// Adding an optional attribute, renaming one and removing one changes the table in place
    /// (`ALTER TABLE`): values, keys and indexes are as a copy would leave them.
    func testColumnsAddedRenamedAndRemovedInPlace() throws {
        let v1 = try ManagedObjectModel {
            EntityDescription("Item") {
                .attribute("code", .string)
                .attribute("legacy", .string)
                .attribute("count", .integer64)
            }
        }
        let v2 = try ManagedObjectModel {
            EntityDescription("Item", uniquenessConstraints: [["label"]]) {
                .attribute("label", .string, renamingIdentifier: "code")
                .attribute("count", .integer64)
                .attribute("note", .string)
            }
        }
        v2.migrationSourceModels = [v1]
        let directory = try TemporaryDirectory()
        let url = directory.file("Items.sqlite")
        try save(v1, at: url) { context in
            for (code, count) in [("a", Int64(1)), ("b", 2)] {
                let item = try context.insertNewObject(forEntityName: "Item")
                try item.setValue(code, forKey: "code")
                try item.setValue("old", forKey: "legacy")
                try item.setValue(count, forKey: "count")
            }
        }
        let context = try open(v2, at: url)
        try context.performAndWait {
            var request = FetchRequest<ManagedObject>(entityName: "Item")
            request.sortDescriptors = [.ascending("count")]
            let items = try context.fetch(request)
            XCTAssertEqual(try items.map { try $0.value(forKey: "label") as? String }, ["a", "b"])
            XCTAssertEqual(try items.map { try $0.value(forKey: "note") as? String }, [nil, nil])
            XCTAssertEqual(items.map { $0.objectID.uriRepresentation.lastPathComponent }, ["p1", "p2"])
        }
        let connection = try SQLiteConnection(path: url.path, mode: .readOnly, log: .disabled)
        var columns: Set<String> = []
        try connection.query("SELECT name FROM pragma_table_info('ZITEM')") { row in columns.insert(row.string(at: 0) ?? "") }
        XCTAssertEqual(columns, ["Z_PK", "Z_ENT", "Z_OPT", "ZLABEL", "ZCOUNT", "ZNOTE"])
        XCTAssertEqual(try connection.scalar("SELECT COUNT(*) FROM sqlite_master WHERE name = 'Z_Item_UNIQUE_label'"), .integer(1))
    }
}
