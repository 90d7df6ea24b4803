import Foundation
@testable import SQLiteBackend
import StoreCore
import StoreTestSupport
import XCTest

/// Core Data leaves a renamed entity's `Z_PRIMARYKEY` row under its old name; the store maps
/// the entity by its renaming identifier, and refuses a store in which an entity has no row
/// rather than return part of the rows.
final class SQLiteRenamedEntityTests: XCTestCase {
    private func model(subentity name: String, renamedFrom oldName: String? = nil) throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Animal") {
                .attribute("name", .string)
            }
            EntityDescription(name, parent: "Animal", renamingIdentifier: oldName) {
                .attribute("barks", .boolean, defaultValue: false)
            }
        }
    }

    private func write(_ sql: String, at url: URL) throws {
        let connection = try SQLiteConnection(path: url.path, mode: .readWrite, log: .disabled)
        try connection.execute(sql)
    }

    func testRenamedSubentityIsFoundByItsRenamingIdentifier() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("Zoo.sqlite")
        do {
            let container = try TestStack.sqliteContainer(try model(subentity: "Dog"), at: url)
            let context = container.newBackgroundContext()
            try context.performAndWait {
                for name in ["Rex", "Fido"] {
                    let dog = try context.insertNewObject(forEntityName: "Dog")
                    try dog.setValue(name, forKey: "name")
                }
                let cat = try context.insertNewObject(forEntityName: "Animal")
                try cat.setValue("Tom", forKey: "name")
                try context.save()
            }
        }
        let container = try TestStack.sqliteContainer(try model(subentity: "Hound", renamedFrom: "Dog"), at: url)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let hounds = try context.fetch(FetchRequest<ManagedObject>(entityName: "Hound"))
            XCTAssertEqual(Set(try hounds.map { try $0.value(forKey: "name") as? String }), ["Rex", "Fido"])
            XCTAssertEqual(hounds.first?.entity.name, "Hound")
            XCTAssertEqual(try context.count(for: FetchRequest<ManagedObject>(entityName: "Animal")), 3, "the sub-entity's rows are all there")
        }
    }

    func testStoreWithAnEntityMissingFromZPrimaryKeyIsRefusedNamingIt() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("Zoo.sqlite")
        _ = try TestStack.sqliteContainer(try model(subentity: "Dog"), at: url)
        try write("DELETE FROM Z_PRIMARYKEY WHERE Z_NAME = 'Dog'", at: url)
        // The recorded version hashes still match the model: only the rows tell.
        XCTAssertThrowsError(try TestStack.sqliteContainer(try model(subentity: "Dog"), at: url)) { error in
            XCTAssertEqual((error as? StoreError)?.code, .incompatibleModel, "\(error)")
            XCTAssertTrue("\(error)".contains("entity Dog has no row in Z_PRIMARYKEY"), "\(error)")
        }
    }
}
