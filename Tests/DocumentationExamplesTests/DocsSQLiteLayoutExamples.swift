import Foundation
import Stowage
import XCTest

/// docs/sqlite-layout.md, "Your own SQL": a report on a reader, a declared write on the writer,
/// maintenance; on the query-language page's quakes and posts in a SQLite store with history.
final class DocsSQLiteLayoutExamples: XCTestCase {
    func testYourOwnSQL() throws {
        let directory = try ExampleStack.makeDirectory()
        defer { ExampleStack.removeDirectory(directory) }
        var description = PersistentStoreDescription(url: directory.appendingPathComponent("Blog.sqlite"))
        description.isHistoryTrackingEnabled = true
        let container = try ExampleStack.container(description, model: try QueryLanguagePage.model())
        try QueryLanguagePage.seed(container.viewContext)
        let ids = try container.viewContext.fetch(FetchRequest<ManagedObjectID>(entityName: "Post", predicate: "title == 'Misty Morning'"))
        let before = try container.persistentStoreCoordinator.currentPersistentHistoryToken()
        _ = printed.take()

        let store = container.persistentStoreCoordinator.persistentStores.first as? SQLiteStore
        let busiest = try store?.readDatabase { db in          // a reader, one read transaction
            try db.rows("SELECT ZPLACE AS place, COUNT(*) AS n FROM ZQUAKE GROUP BY ZPLACE ORDER BY n DESC LIMIT ?", [.integer(5)])
        }
        for row in busiest ?? [] {                             // [String: StoreValue], by column name
            print(row.value("place", as: String.self) ?? "", row.value("n", as: Int.self) ?? 0)   // California 2
        }
        try store?.writeDatabase(touching: SQLTouchedObjects(updated: ids), transactionAuthor: "nightly") { db in
            try db.execute("UPDATE ZPOST SET ZVIEWS = 0 WHERE Z_PK = ?", [.objectID(ids[0])])
        }
        try store?.writeDatabase { try $0.execute("ANALYZE") }

        XCTAssertEqual(printed.take(), ["California 2", "Chile 1"])
        let reader = container.newBackgroundContext()
        try reader.performAndWait {
            let views = try reader.fetch(FetchRequest<QueryLanguagePage.Post>(entityName: "Post", predicate: "title == 'Misty Morning'")).map(\.views)
            XCTAssertEqual(views, [0])
            let history = try reader.execute(PersistentHistoryChangeRequest.fetchHistory(after: before)).transactions ?? []
            XCTAssertEqual(history.map(\.author), ["nightly"], "the declared write is one history transaction")
            XCTAssertEqual(history.first?.changes?.map(\.changedObjectID), ids)
        }
        ExampleStack.close(container)
    }

    func testABackupRestoredThenDestroyed() throws {
        let directory = try ExampleStack.makeDirectory()
        defer { ExampleStack.removeDirectory(directory) }
        let storeURL = directory.appendingPathComponent("Blog.sqlite")
        let backupURL = directory.appendingPathComponent("Backup.sqlite")
        let container = try ExampleStack.seeded(PersistentStoreDescription(url: storeURL))

        let coordinator = container.persistentStoreCoordinator
        try coordinator.replacePersistentStore(at: backupURL, withPersistentStoreFrom: storeURL, type: .sqlite)  // while the app saves

        if let store = coordinator.persistentStore(for: storeURL) { try coordinator.removePersistentStore(store) }
        try coordinator.replacePersistentStore(at: storeURL, withPersistentStoreFrom: backupURL, type: .sqlite)  // restore
        try coordinator.addPersistentStore(with: PersistentStoreDescription(url: storeURL))

        try coordinator.destroyPersistentStore(at: backupURL, type: .sqlite)   // every file of it, nothing left

        let reader = container.newBackgroundContext()
        XCTAssertEqual(try reader.performAndWait { try reader.count(for: FetchRequest<Post>()) }, 3, "the restored store holds the posts")
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("Backup") }
        XCTAssertEqual(left, [], "no file of the backup is left")
        ExampleStack.close(container)
    }
}
