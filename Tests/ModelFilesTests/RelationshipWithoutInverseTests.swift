import Foundation
import ModelFiles
@testable import SQLiteBackend
import StoreCore
import StoreTestSupport
import XCTest

/// Relationships without an inverse, which Xcode models may have, save and read back in a SQLite
/// store laid out as Core Data lays them out: a to-many keeps its owner's key in a
/// `Z<owner entity number><NAME>` column of the destination's table.
final class RelationshipWithoutInverseTests: XCTestCase {
    private static let contents = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
            <entity name="Shelf" representedClassName="Shelf" syncable="YES">
                <attribute name="name" optional="YES" attributeType="String"/>
                <relationship name="books" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Volume"/>
                <relationship name="favorite" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Volume"/>
            </entity>
            <entity name="Volume" representedClassName="Volume" syncable="YES">
                <attribute name="title" optional="YES" attributeType="String"/>
            </entity>
        </model>
        """

    func testToManyAndToOneWithoutInverseSaveAndReadBack() throws {
        let directory = try TemporaryDirectory()
        let folder = directory.url.appendingPathComponent("Library.xcdatamodel", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(Self.contents.utf8).write(to: folder.appendingPathComponent("contents"))
        let model = try ManagedObjectModel(contentsOf: folder)
        let url = directory.file("Library.sqlite")

        let container = try TestStack.sqliteContainer(model, at: url)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let shelf = try context.insertNewObject(forEntityName: "Shelf")
            try shelf.setValue("fiction", forKey: "name")
            var volumes: [ManagedObject] = []
            for title in ["A", "B", "C"] {
                let volume = try context.insertNewObject(forEntityName: "Volume")
                try volume.setValue(title, forKey: "title")
                volumes.append(volume)
            }
            try shelf.setValue(Set(volumes), forKey: "books")
            try shelf.setValue(volumes[1], forKey: "favorite")
            try context.save()
        }
        try container.persistentStoreCoordinator.persistentStores.forEach { try container.persistentStoreCoordinator.removePersistentStore($0) }

        let connection = try SQLiteConnection(path: url.path, mode: .readOnly, log: .disabled)
        var columns: [String] = []
        try connection.query("SELECT name FROM pragma_table_info('ZVOLUME')") { columns.append($0.string(at: 0) ?? "") }
        XCTAssertTrue(columns.contains("Z1BOOKS"), "\(columns)")
        XCTAssertEqual(try connection.scalar("SELECT COUNT(*) FROM ZVOLUME WHERE Z1BOOKS IS NOT NULL"), .integer(3))

        let again = try TestStack.sqliteContainer(model, at: url)
        let reader = again.newBackgroundContext()
        try reader.performAndWait {
            let shelf = try XCTUnwrap(try reader.fetch(FetchRequest<ManagedObject>(entityName: "Shelf")).first)
            let books = try XCTUnwrap(try shelf.value(forKey: "books") as? Set<ManagedObject>)
            XCTAssertEqual(Set(books.compactMap { try? $0.value(forKey: "title") as? String }), ["A", "B", "C"])
            XCTAssertEqual(try (shelf.value(forKey: "favorite") as? ManagedObject)?.value(forKey: "title") as? String, "B")
            try shelf.setValue(Set(books.filter { (try? $0.value(forKey: "title") as? String) != "A" }), forKey: "books")
            try reader.save()
        }
        XCTAssertEqual(try connection.scalar("SELECT COUNT(*) FROM ZVOLUME WHERE Z1BOOKS IS NOT NULL"), .integer(2), "a removed member is no longer held")
        try reader.performAndWait {
            let shelf = try XCTUnwrap(try reader.fetch(FetchRequest<ManagedObject>(entityName: "Shelf")).first)
            reader.delete(shelf)
            try reader.save()
        }
        XCTAssertEqual(try connection.scalar("SELECT COUNT(*) FROM ZVOLUME WHERE Z1BOOKS IS NOT NULL"), .integer(0), "deleting the owner clears its members' keys")
        XCTAssertEqual(try connection.scalar("SELECT COUNT(*) FROM ZVOLUME"), .integer(3))
    }
}
