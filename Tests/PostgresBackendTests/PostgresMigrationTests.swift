#if Postgres  // the PostgreSQL store is built only with the Postgres package trait (Package.swift)
import Foundation
import PostgresBackend
import StoreCore
import StoreTestSupport
import XCTest

/// Lightweight migration of a PostgreSQL store: opened with a newer model version, the store is
/// carried over in one transaction, swapped in under its schema's name, and keeps its identity,
/// its objects' keys and its history; a type change goes through the migration manager.
final class PostgresMigrationTests: XCTestCase {
    private func models() throws -> (v1: ManagedObjectModel, v2: ManagedObjectModel) {
        let v1 = try ManagedObjectModel {
            EntityDescription("Owner") {
                .attribute("name", .string)
                .toMany("cats", destination: "Cat", inverse: "owner")
            }
            EntityDescription("Cat") {
                .attribute("name", .string)
                .toOne("owner", destination: "Owner", inverse: "cats")
            }
        }
        let v2 = try ManagedObjectModel {
            EntityDescription("Owner") {
                .attribute("name", .string)
                .attribute("city", .string, defaultValue: "Oslo")
                .toMany("cats", destination: "Cat", inverse: "owner")
            }
            EntityDescription("Cat") {
                .attribute("name", .string)
                .attribute("lives", .integer16, optional: false, defaultValue: 9)
                .toOne("owner", destination: "Owner", inverse: "cats")
            }
        }
        v2.migrationSourceModels = [v1]
        return (v1, v2)
    }

    private func container(_ model: ManagedObjectModel, schema: String) throws -> PersistentContainer {
        PostgresStore.register()
        let container = PersistentContainer(name: "Zoo", managedObjectModel: model)
        var description = try PostgresTestServer.description(schema: schema)
        description.isHistoryTrackingEnabled = true
        container.persistentStoreDescriptions = [description]
        try container.loadPersistentStores()
        return container
    }

    func testANewModelVersionMigratesTheStoreAndKeepsItsObjects() throws {
        let (v1, v2) = try models()
        let schema = PostgresTestServer.freshSchema("mig")
        let old = try container(v1, schema: schema)
        let identifier = try XCTUnwrap(old.persistentStoreCoordinator.persistentStores.first?.identifier)
        let context = old.newBackgroundContext()
        try context.performAndWait {
            // A deleted first cat leaves a gap in the keys, which a copy that renumbered would close.
            let gone = try context.insertNewObject(forEntityName: "Cat")
            try context.save()
            context.delete(gone)
            try context.save()
            let owner = try context.insertNewObject(forEntityName: "Owner")
            try owner.setValue("Ann", forKey: "name")
            var cats: Set<ManagedObject> = []
            for name in ["Tom", "Kit"] {
                let cat = try context.insertNewObject(forEntityName: "Cat")
                try cat.setValue(name, forKey: "name")
                cats.insert(cat)
            }
            try owner.setValue(cats, forKey: "cats")
            try context.save()
        }
        let keysBefore = try context.performAndWait { try Set(context.fetch(FetchRequest<ManagedObject>(entityName: "Cat")).map(\.objectID)) }
        let historyBefore = try XCTUnwrap(try old.persistentStoreCoordinator.currentPersistentHistoryToken())
        for store in old.persistentStoreCoordinator.persistentStores { try old.persistentStoreCoordinator.removePersistentStore(store) }

        let new = try container(v2, schema: schema)
        XCTAssertEqual(new.persistentStoreCoordinator.persistentStores.first?.identifier, identifier, "the store keeps its identity")
        XCTAssertEqual(try new.persistentStoreCoordinator.currentPersistentHistoryToken(), historyBefore, "history moves with the store")
        let reader = new.newBackgroundContext()
        try reader.performAndWait {
            var request = FetchRequest<ManagedObject>(entityName: "Cat")
            request.sortDescriptors = [.ascending("name")]
            let cats = try reader.fetch(request)
            XCTAssertEqual(try cats.map { try $0.value(forKey: "name") as? String }, ["Kit", "Tom"])
            XCTAssertEqual(Set(cats.map(\.objectID)), keysBefore, "objects keep their keys, so IDs and URIs stay valid")
            XCTAssertEqual(try cats.map { try $0.value(forKey: "lives") as? Int64 }, [9, 9], "a new attribute takes its default")
            let owners = try cats.map { try $0.value(forKey: "owner") as? ManagedObject }
            XCTAssertEqual(try owners.map { try $0?.value(forKey: "name") as? String }, ["Ann", "Ann"], "relationships are carried over")
        }
        // Opened again with the new model, nothing more happens.
        for store in new.persistentStoreCoordinator.persistentStores { try new.persistentStoreCoordinator.removePersistentStore(store) }
        let again = try container(v2, schema: schema).newBackgroundContext()
        try again.performAndWait {
            XCTAssertEqual(try again.count(for: FetchRequest<ManagedObject>(entityName: "Cat")), 2)
        }
    }

    func testATypeChangeGoesThroughTheMigrationManager() throws {
        let v1 = try ManagedObjectModel {
            EntityDescription("Reading") { .attribute("value", .integer32) }
        }
        let v2 = try ManagedObjectModel {
            EntityDescription("Reading") { .attribute("value", .double) }
        }
        v2.migrationSourceModels = [v1]
        let schema = PostgresTestServer.freshSchema("migtype")
        let old = try container(v1, schema: schema)
        let context = old.newBackgroundContext()
        try context.performAndWait {
            for value in [3, 4] {
                let reading = try context.insertNewObject(forEntityName: "Reading")
                try reading.setValue(Int32(value), forKey: "value")
            }
            try context.save()
        }
        for store in old.persistentStoreCoordinator.persistentStores { try old.persistentStoreCoordinator.removePersistentStore(store) }
        let reader = try container(v2, schema: schema).newBackgroundContext()
        try reader.performAndWait {
            let values = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Reading")).compactMap { try $0.value(forKey: "value") as? Double }
            XCTAssertEqual(values.sorted(), [3.0, 4.0])
        }
    }
}
#endif
