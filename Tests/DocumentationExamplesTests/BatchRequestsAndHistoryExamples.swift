import Foundation
import Stowage
import XCTest

/// BatchRequestsAndHistory.md: batch insert (dictionaries and a handler), update and delete with
/// their results, then persistent history: tracking, fetching, narrowing, deleting.
final class BatchRequestsAndHistoryExamples: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = try ExampleStack.makeDirectory()
    }

    override func tearDown() {
        ExampleStack.removeDirectory(directory)
        super.tearDown()
    }

    /// Runs the batch examples on `container`, in the article's order.
    private func runBatchExamples(on container: PersistentContainer) throws {
        let importer = container.newBackgroundContext()
        let inserted = try importer.performAndWait {
            var insert = BatchInsertRequest(entityName: "Post", objects: [
                ["title": "Misty Morning", "views": 120],
                ["title": "Harbour Lights", "views": 45],
            ])
            insert.resultType = .count
            return try importer.execute(insert).count ?? 0
        }
        print(inserted)                                  // 2

        XCTAssertEqual(inserted, 2)

        var next = 0
        let generated = BatchInsertRequest(entityName: "Comment", dictionaryHandler: { row in
            guard next < 1_000 else { return true }      // true: no more rows
            row["text"] = "Comment \(next)"
            next += 1
            return false
        })
        let status = try importer.performAndWait { try importer.execute(generated).status }
        print(status ?? false)                           // true

        XCTAssertEqual(status, true)
        XCTAssertEqual(try importer.performAndWait { try importer.count(for: FetchRequest<Comment>()) }, 1_000)

        let viewed = try container.viewContext.fetch(FetchRequest<Post>(entityName: "Post", predicate: "title == 'Harbour Lights'"))[0]
        XCTAssertEqual(try viewed.value(forKey: "views") as? Int64, 45)

        var update = BatchUpdateRequest(entityName: "Post", predicate: try StorePredicate(format: "views < %@", 100))
        update.propertiesToUpdate = ["views": try StoreExpression(format: "views * 2")]
        update.resultType = .objectIDs
        let changed = try importer.performAndWait { try importer.execute(update).objectIDs ?? [] }
        ManagedObjectContext.mergeChanges(fromRemoteContextSave: [.updatedObjectIDs: changed], into: [container.viewContext])
        print(changed.count)                             // 1: "Harbour Lights", now at 90 views

        XCTAssertEqual(changed, [viewed.objectID])
        XCTAssertEqual(try viewed.value(forKey: "views") as? Int64, 90, "the view context's object was refreshed by the merge")

        var delete = BatchDeleteRequest(fetchRequest: FetchRequest<Comment>(entityName: "Comment", predicate: try StorePredicate(format: "text BEGINSWITH %@", "Comment")))
        delete.resultType = .count
        let deleted = try importer.performAndWait { try importer.execute(delete).count ?? 0 }
        print(deleted)                                   // 1000

        XCTAssertEqual(deleted, 1_000)
        XCTAssertEqual(try container.viewContext.count(for: FetchRequest<Comment>()), 0)
    }

    func testBatchRequestsInMemory() throws {
        try runBatchExamples(on: try ExampleStack.container())
    }

    func testBatchRequestsOnSQLite() throws {
        let container = try ExampleStack.container(PersistentStoreDescription(url: directory.appendingPathComponent("Batch.sqlite")))
        try runBatchExamples(on: container)
        ExampleStack.close(container)
    }

    func testResultTypes() throws {
        let container = try ExampleStack.container()
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let status = try context.execute(BatchInsertRequest(entityName: "Post", objects: [["title": "A"]]))
            XCTAssertEqual(status.status, true)
            XCTAssertNil(status.count, "nil for another result type")
            var withIDs = BatchInsertRequest(entityName: "Post", objects: [["title": "B"]])
            withIDs.resultType = .objectIDs
            XCTAssertEqual(try context.execute(withIDs).objectIDs?.count, 1)
            // One bad row fails the whole request and writes nothing.
            XCTAssertThrowsError(try context.execute(BatchInsertRequest(entityName: "Post", objects: [["title": "C"], ["views": -1]]))) { error in
                XCTAssertTrue(error is ObjectValidationError, "\(error)")
            }
            XCTAssertEqual(try context.count(for: FetchRequest<Post>()), 2)
        }
    }

    func testPersistentHistory() throws {
        let model = try ExampleStack.model()
        let storeURL = directory.appendingPathComponent("History.sqlite")

        var description = PersistentStoreDescription(url: storeURL)
        description.isHistoryTrackingEnabled = true
        let tracked = PersistentContainer(name: "Blog", managedObjectModel: model)
        tracked.persistentStoreDescriptions = [description]
        try tracked.loadPersistentStores()

        let writer = tracked.newBackgroundContext()
        writer.transactionAuthor = "importer"
        try writer.performAndWait {
            let post = try Post(context: writer)
            post.title = "Tracked"
            try writer.save()
        }

        let reader = tracked.newBackgroundContext()
        var lastToken: PersistentHistoryToken?
        let transactions = try reader.performAndWait {
            try reader.execute(PersistentHistoryChangeRequest.fetchHistory(after: lastToken)).transactions ?? []
        }
        for transaction in transactions {
            print(transaction.author ?? "", transaction.changes?.count ?? 0)   // importer 1
            tracked.viewContext.mergeChanges(fromContextDidSave: transaction.objectIDNotification())
            lastToken = transaction.token
        }

        XCTAssertEqual(transactions.count, 1)
        XCTAssertEqual(transactions.first?.author, "importer")
        XCTAssertEqual(transactions.first?.changes?.map(\.changeType), [.insert])
        XCTAssertEqual(transactions.first?.changes?.first?.changedObjectID.entityName, "Post")
        XCTAssertNotNil(lastToken)

        var byImporter = PersistentHistoryChangeRequest.fetchHistory(after: Date.distantPast)
        byImporter.fetchRequest = PersistentHistoryTransaction.fetchRequest(try StorePredicate(format: "author == %@", "importer"))
        byImporter.resultType = .count
        let count = try reader.performAndWait { try reader.execute(byImporter).count ?? 0 }
        print(count)                                     // 1

        XCTAssertEqual(count, 1)

        let newest = try tracked.persistentStoreCoordinator.currentPersistentHistoryToken()
        try reader.performAndWait {
            _ = try reader.execute(PersistentHistoryChangeRequest.deleteHistory(before: newest))
        }
        print(newest == lastToken)                       // true

        XCTAssertEqual(newest, lastToken)
        let left = try reader.performAndWait {
            try reader.execute(PersistentHistoryChangeRequest.fetchHistory(after: nil as PersistentHistoryToken?)).transactions ?? []
        }
        XCTAssertEqual(left.count, 0, "the history up to the newest token is gone")

        // Two more saves, then history up to the newest is deleted: lastToken is behind it.
        for title in ["Later", "Latest"] {
            try writer.performAndWait {
                let post = try Post(context: writer)
                post.title = title
                try writer.save()
            }
        }
        let behind = lastToken
        try reader.performAndWait {
            _ = try reader.execute(PersistentHistoryChangeRequest.deleteHistory(before: try tracked.persistentStoreCoordinator.currentPersistentHistoryToken()))
        }
        do {
            let missed = try reader.performAndWait {
                try reader.execute(PersistentHistoryChangeRequest.fetchHistory(after: lastToken)).transactions ?? []
            }
            print(missed.count)
        } catch StoreError.Code.persistentHistoryTokenExpired {
            tracked.viewContext.reset()                  // history after lastToken is gone: refetch what you show
            lastToken = try tracked.persistentStoreCoordinator.currentPersistentHistoryToken()
        }

        XCTAssertNotEqual(lastToken, behind, "the token expired and the reader started again")
        XCTAssertEqual(lastToken, try tracked.persistentStoreCoordinator.currentPersistentHistoryToken())
        ExampleStack.close(tracked)
    }
}
