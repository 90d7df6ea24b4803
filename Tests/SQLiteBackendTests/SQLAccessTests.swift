import Foundation
import SQLiteBackend
import StoreCore
import StoreTestSupport
import StowageTestKit
import XCTest

/// Your own SQL on a SQLite store: reads in one read transaction, writes in the store's own
/// write transaction, recorded in history as declared, and ANALYZE / VACUUM on load.
final class SQLAccessTests: XCTestCase {
    private func stack(_ options: [PersistentStoreOption: StoreValue] = [:]) throws -> (StoreTestStack, SQLiteStore) {
        let stack = try StoreBackend.sqlite.kit.makeStack(model: BlogModel.make(), options: options)
        let store = try XCTUnwrap(stack.container.persistentStoreCoordinator.persistentStores.first as? SQLiteStore)
        return (stack, store)
    }

    private func insertPosts(_ stack: StoreTestStack, _ titles: [String]) throws -> [ManagedObjectID] {
        let context = stack.newContext()
        return try context.performAndWait {
            let posts = try titles.enumerated().map { index, title in
                let post = try Post(context: context)
                post.title = title
                post.views = Int64(index * 10)
                return post
            }
            try context.save()
            return posts.map(\.objectID)
        }
    }

    func testReadsAndWritesWithHistory() throws {
        let (stack, store) = try stack([.persistentHistoryTracking: true])
        let ids = try insertPosts(stack, ["a", "b", "c"])
        let rows = try store.readDatabase { db in
            try db.rows("SELECT ZTITLE AS title, ZVIEWS AS views FROM ZPOST WHERE ZVIEWS >= ? ORDER BY ZVIEWS", [.integer(10)])
        }
        XCTAssertEqual(rows, [["title": .string("b"), "views": .integer(10)], ["title": .string("c"), "views": .integer(20)]])
        XCTAssertEqual(try store.readDatabase { try $0.scalar("SELECT COUNT(*) FROM ZPOST") }, .integer(3))

        let token = try stack.container.persistentStoreCoordinator.currentPersistentHistoryToken()
        let changed = try store.writeDatabase(touching: SQLTouchedObjects(updated: [ids[0]]), transactionAuthor: "report") { db in
            try db.execute("UPDATE ZPOST SET ZVIEWS = 99 WHERE Z_PK = ?", [.objectID(ids[0])])
            return db.changes
        }
        XCTAssertEqual(changed, 1)
        let context = stack.newContext()
        try context.performAndWait {
            let transactions = try context.execute(.fetchHistory(after: token)).transactions ?? []
            XCTAssertEqual(transactions.map(\.author), ["report"], "one history transaction, by the declared author")
            XCTAssertEqual(transactions.first?.changes?.map(\.changedObjectID), [ids[0]])
            XCTAssertEqual((try context.existingObject(with: ids[0]) as? Post)?.views, 99)
        }
    }

    func testAFailedWriteChangesNothing() throws {
        let (stack, store) = try stack()
        _ = try insertPosts(stack, ["a"])
        XCTAssertThrowsError(try store.writeDatabase { db in
            try db.execute("UPDATE ZPOST SET ZVIEWS = 5")
            try db.execute("UPDATE NO_SUCH_TABLE SET X = 1")
        }) { error in
            XCTAssertNotNil(error as? StoreError)
        }
        XCTAssertEqual(try store.readDatabase { try $0.scalar("SELECT ZVIEWS FROM ZPOST") }, .integer(0), "rolled back")
        XCTAssertThrowsError(try store.writeDatabase { try $0.execute("VACUUM") }, "VACUUM cannot run in a transaction")
    }

    /// Statements are cached and keep their values bound from one run to the next: a parameter the next run leaves out is NULL, not the
    /// last run's value, and texts of any length are written whole from row to row.
    func testAReusedStatementBindsOnlyWhatItIsGiven() throws {
        let (stack, store) = try stack()
        let sql = "SELECT ? AS first, ? AS second"
        let both = try store.readDatabase { try $0.rows(sql, [.integer(1), .string("kept?")]) }
        XCTAssertEqual(both, [["first": .integer(1), "second": .string("kept?")]])
        let one = try store.readDatabase { try $0.rows(sql, [.integer(2)]) }
        XCTAssertEqual(one, [["first": .integer(2), "second": .null]], "the parameter left out is NULL")

        let large = String(repeating: "x", count: 70_000)
        let lengths = try store.readDatabase { db in
            try [large, "short", ""].map { try db.scalar("SELECT length(?)", [.string($0)]) }
        }
        XCTAssertEqual(lengths, [.integer(70_000), .integer(5), .integer(0)])

        let titles = ["a long title that SQLite copies into a buffer of its own", "b", String(repeating: "y", count: 80), "c"]
        _ = try insertPosts(stack, titles)
        let stored = try store.readDatabase { try $0.rows("SELECT ZTITLE AS title FROM ZPOST ORDER BY ZVIEWS") }
        XCTAssertEqual(stored.map { $0["title"] }, titles.map { .string($0) })
    }

    func testAnalyzeAndVacuumOnLoad() throws {
        let (stack, _) = try stack()
        _ = try insertPosts(stack, ["a", "b"])
        var description = stack.storeDescription
        description.setOption(true, forKey: .sqliteAnalyze)
        description.setOption(true, forKey: .sqliteManualVacuum)
        for store in stack.container.persistentStoreCoordinator.persistentStores {
            try stack.container.persistentStoreCoordinator.removePersistentStore(store)
        }
        let container = PersistentContainer(name: "Again", managedObjectModel: stack.model)
        container.persistentStoreDescriptions = [description]
        try container.loadPersistentStores()
        let store = try XCTUnwrap(container.persistentStoreCoordinator.persistentStores.first as? SQLiteStore)
        let statistics = try store.readDatabase { try $0.scalar("SELECT COUNT(*) FROM sqlite_master WHERE name = 'sqlite_stat1'") }
        XCTAssertEqual(statistics, .integer(1), "ANALYZE ran")
    }
}
