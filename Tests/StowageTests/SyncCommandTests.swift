import Foundation
import Stowage
import StoreTestSupport
import XCTest

/// `stowage sync LOCAL --with SERVER`, run as a user runs it.
final class SyncCommandTests: XCTestCase {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Note") {
                .attribute("title", .string)
                .attribute("rank", .integer64, defaultValue: 0)
            }
            SyncEngine.modelEntities()
        }
    }

    /// A loaded container on the SQLite store at `url`, with history (also used by SyncKillTests).
    static func container(_ url: URL, _ model: ManagedObjectModel) throws -> PersistentContainer {
        let container = PersistentContainer(name: "Notes", managedObjectModel: model)
        var description = PersistentStoreDescription(type: .sqlite, url: url)
        description.isHistoryTrackingEnabled = true
        container.persistentStoreDescriptions = [description]
        try container.loadPersistentStores()
        return container
    }

    func titles(_ url: URL, _ model: ManagedObjectModel) throws -> [String] {
        let context = try Self.container(url, model).newBackgroundContext()
        return try context.performAndWait {
            try context.fetch(FetchRequest<ManagedObject>(entityName: "Note")).map { try $0.value(forKey: "title") as? String ?? "" }.sorted()
        }
    }

    func testSyncPushesAndPullsBetweenTwoStoresThroughAServerFile() throws {
        let directory = try TemporaryDirectory()
        let model = try Self.model()
        let a = directory.file("a.sqlite"), b = directory.file("b.sqlite"), server = directory.file("server.sqlite")
        do {
            let context = try Self.container(a, model).newBackgroundContext()
            try context.performAndWait {
                for title in ["one", "two"] { try context.insertNewObject(forEntityName: "Note").setValue(title, forKey: "title") }
                try context.save()
            }
            _ = try Self.container(b, model)
        }
        var (status, output) = try runStowage(["sync", a.path, "--with", server.path])
        XCTAssertEqual(status, 0, output)
        XCTAssertTrue(output.contains("pushed 1 transaction: 2 inserted, 0 updated, 0 deleted"), output)
        (status, output) = try runStowage(["sync", b.path, "--with", server.path])
        XCTAssertEqual(status, 0, output)
        XCTAssertTrue(output.contains("pulled every object (a full read): 2 inserted, 0 updated, 0 deleted"), output)
        XCTAssertEqual(try titles(b, model), ["one", "two"])

        // A delete on b reaches a through the server (the server was made from b's cached model).
        let context = try Self.container(b, model).newBackgroundContext()
        try context.performAndWait {
            let one = try context.fetch(FetchRequest<ManagedObject>(entityName: "Note", predicate: StorePredicate(format: "title == 'one'")))
            for note in one { context.delete(note) }
            try context.save()
        }
        (status, output) = try runStowage(["sync", b.path, "--with", server.path])
        XCTAssertEqual(status, 0, output)
        (status, output) = try runStowage(["sync", a.path, "--with", server.path])
        XCTAssertEqual(status, 0, output)
        XCTAssertTrue(output.contains("pulled 1 transaction: 0 inserted, 0 updated, 1 deleted"), output)
        XCTAssertEqual(try titles(a, model), ["two"])
    }

    func testSyncRefusesAStoreWhoseModelLacksTheSyncEntities() throws {
        let directory = try TemporaryDirectory()
        let plain = try ManagedObjectModel { EntityDescription("Note") { .attribute("title", .string) } }
        _ = try Self.container(directory.file("plain.sqlite"), plain)
        let (status, output) = try runStowage(["sync", directory.file("plain.sqlite").path, "--with", directory.file("server.sqlite").path])
        XCTAssertNotEqual(status, 0)
        XCTAssertTrue(output.contains("SyncEngine.modelEntities()"), output)
    }
}
