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
}
