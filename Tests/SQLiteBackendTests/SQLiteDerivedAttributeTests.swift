import Foundation
@testable import SQLiteBackend
import StoreCore
import StoreTestSupport
import XCTest

/// Derived attributes in SQLite are computed by triggers: Stowage creates its own (named as
/// Core Data names them), and a store written by Core Data keeps working with Core Data's.
final class SQLiteDerivedAttributeTests: XCTestCase {
    private func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Folder") {
                .attribute("name", .string)
                .attribute("itemCount", .integer64, derivation: "items.@count")
                .attribute("lowered", .string, derivation: "lowercase:(name)")
                .toMany("items", destination: "Item", inverse: "folder")
            }
            EntityDescription("Item") {
                .attribute("label", .string)
                .toOne("folder", destination: "Folder", inverse: "items")
            }
        }
    }

    private func triggerNames(at url: URL) throws -> [String] {
        let connection = try SQLiteConnection(path: url.path, mode: .readOnly, log: .disabled)
        var names: [String] = []
        try connection.query("SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name") { row in
            if let name = row.string(at: 0) { names.append(name) }
        }
        return names
    }

    private func saveFolder(named name: String, items: Int, in container: PersistentContainer) throws -> ManagedObject {
        let context = container.newBackgroundContext()
        return try context.performAndWait {
            let folder = try context.insertNewObject(forEntityName: "Folder")
            try folder.setValue(name, forKey: "name")
            for index in 0..<items {
                let item = try context.insertNewObject(forEntityName: "Item")
                try item.setValue("item \(index)", forKey: "label")
                try item.setValue(folder, forKey: "folder")
            }
            try context.save()
            return folder
        }
    }

    func testANewStoreCreatesTriggersNamedAsCoreDataNamesThem() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("Folders.sqlite")
        let container = try TestStack.sqliteContainer(try model(), at: url)
        let folder = try saveFolder(named: "Inbox", items: 2, in: container)
        try folder.managedObjectContext?.performAndWait {
            XCTAssertEqual(try folder.value(forKey: "itemCount") as? Int64, 2)
            XCTAssertEqual(try folder.value(forKey: "lowered") as? String, "inbox")
        }
        let names = try triggerNames(at: url)
        XCTAssertTrue(names.contains("Z_DA_ZITEM_Folder_itemCount_PARAMETER_INSERT"), "\(names)")
        XCTAssertTrue(names.contains("Z_DA_ZFOLDER_Folder_lowered_INSERT"), "\(names)")
        XCTAssertTrue(names.contains("Z_DA_ZFOLDER_Folder_lowered_UPDATE"), "\(names)")
    }

    func testAStoreWithCoreDatasTriggersKeepsThemAndGetsNoSecondSet() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("Folders.sqlite")
        do {
            let container = try TestStack.sqliteContainer(try model(), at: url)
            _ = try saveFolder(named: "Old", items: 1, in: container)
            for store in container.persistentStoreCoordinator.persistentStores {
                try container.persistentStoreCoordinator.removePersistentStore(store)
            }
        }
        // Replace Stowage's triggers by triggers in the form Core Data writes: an increment
        // per inserted member, and the callbacks into Core Data's context.
        let connection = try SQLiteConnection(path: url.path, mode: .readWrite, log: .disabled)
        for name in try triggerNames(at: url) { try connection.execute("DROP TRIGGER \(name)") }
        try connection.execute("""
            CREATE TRIGGER Z_DA_ZITEM_Folder_itemCount_PARAMETER_INSERT AFTER INSERT ON ZITEM FOR EACH ROW BEGIN \
            UPDATE ZFOLDER SET ZITEMCOUNT = IFNULL(ZITEMCOUNT, 0) + 1 WHERE Z_PK = NEW.ZFOLDER; \
            SELECT NSCoreDataDATriggerUpdatedAffectedObjectValue('ZFOLDER', Z_ENT, Z_PK, 'itemCount', ZITEMCOUNT) FROM ZFOLDER WHERE Z_PK = NEW.ZFOLDER; END
            """)
        try connection.execute("""
            CREATE TRIGGER Z_DA_ZFOLDER_Folder_lowered_INSERT AFTER INSERT ON ZFOLDER FOR EACH ROW BEGIN \
            UPDATE ZFOLDER SET ZLOWERED = NSCoreDataToLower(NEW.ZNAME) WHERE Z_PK = NEW.Z_PK; \
            SELECT NSCoreDataDATriggerInsertUpdatedAffectedObjectValue('ZFOLDER', Z_ENT, Z_PK, 'lowered', ZLOWERED) FROM ZFOLDER WHERE Z_PK = NEW.Z_PK; END
            """)
        let coreDataTriggers = try triggerNames(at: url)

        let container = try TestStack.sqliteContainer(try model(), at: url)
        let folder = try saveFolder(named: "ÉCOLE", items: 3, in: container)
        try folder.managedObjectContext?.performAndWait {
            XCTAssertEqual(try folder.value(forKey: "itemCount") as? Int64, 3, "Core Data's increments ran once each")
            XCTAssertEqual(try folder.value(forKey: "lowered") as? String, "école")
        }
        XCTAssertEqual(try triggerNames(at: url), coreDataTriggers, "no trigger of Stowage's was added beside Core Data's")
    }
}
