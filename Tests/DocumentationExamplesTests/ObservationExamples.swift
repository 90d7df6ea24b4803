import Foundation
import Stowage
import XCTest

final class TitleList: FetchedResultsControllerDelegate {
    var rows: [String] = []

    func controller(_ controller: FetchedResultsController<Post>, didChange object: Post, at indexPath: IndexPath?,
                    for type: FetchedResultsChangeType, newIndexPath: IndexPath?) {
        switch (type, indexPath, newIndexPath) {
        case (.insert, _, let new?): rows.insert(object.title, at: new.item)
        case (.delete, let old?, _): rows.remove(at: old.item)
        case (.move, let old?, let new?): rows.remove(at: old.item); rows.insert(object.title, at: new.item)
        case (.update, let old?, _): rows[old.item] = object.title
        default: break
        }
    }
}

/// Observation.md: change streams, a fetched results controller, live queries, query
/// generations and undo, on the seeded Blog store (three posts).
final class ObservationExamples: XCTestCase {
    func testChangeStreams() async throws {
        _ = printed.take()
        let container = try ExampleStack.seeded()
        let writer = container.newBackgroundContext()

        let didSave = writer.changes(of: .didSave)          // subscribe before the save
        let firstSave = Task {
            for await saved in didSave {
                return saved.insertedObjectIDs.count
            }
            return 0
        }
        try await writer.perform {
            let post = try Post(context: writer)
            post.title = "Observed"
            try writer.save()
        }
        print(await firstSave.value)                        // 1

        XCTAssertEqual(printed.take().last, "1")
        let inserted = await firstSave.value
        XCTAssertEqual(inserted, 1)
    }

    func testFetchedResultsController() throws {
        let container = try ExampleStack.seeded()
        let context = container.viewContext

        var byTitle = FetchRequest<Post>()
        byTitle.sortDescriptors = [.ascending("title")]
        let controller = try FetchedResultsController(fetchRequest: byTitle, managedObjectContext: context,
                                                      sectionNameKeyPath: nil, cacheName: nil)
        let list = TitleList()
        controller.delegate = list
        try controller.performFetch()
        list.rows = controller.fetchedObjects?.map(\.title) ?? []

        let post = try Post(context: context)
        post.title = "Aurora"
        context.processPendingChanges()          // the delegate hears of it now (a save or a perform block's end does it too)
        print(list.rows)                         // ["Aurora", "Harbour Lights", "Misty Morning", "Northern Sky"]

        XCTAssertEqual(list.rows, ["Aurora", "Harbour Lights", "Misty Morning", "Northern Sky"])
        XCTAssertEqual(controller.sections?.count, 1)
        XCTAssertEqual(try controller.object(at: IndexPath(item: 0, section: 0)).title, "Aurora")
        XCTAssertEqual(controller.indexPath(forObject: post), IndexPath(item: 0, section: 0))

        try context.save()
        post.title = "Zenith"                    // moves to the end
        context.processPendingChanges()
        XCTAssertEqual(list.rows, ["Harbour Lights", "Misty Morning", "Northern Sky", "Zenith"])
        context.delete(post)
        context.processPendingChanges()
        XCTAssertEqual(list.rows, ["Harbour Lights", "Misty Morning", "Northern Sky"])
    }

    func testLiveQueries() async throws {
        let container = try ExampleStack.seeded()
        let reader = container.newBackgroundContext()
        let writer = container.newBackgroundContext()

        _ = printed.take()

        var recent = FetchRequest<Post>()
        recent.sortDescriptors = [.descending("timestamp")]
        recent.fetchLimit = 20
        for try await posts in reader.changes(for: recent) {
            print(posts.count)                        // 3: the current results come first
            if posts.count >= 3 { break }             // or keep following until the task ends
        }

        XCTAssertEqual(printed.take(), ["3"])

        var counts = reader.changes(forCountOf: FetchRequest<Post>()).makeAsyncIterator()
        print(try await counts.next() ?? 0)           // 3
        try await writer.perform {
            let post = try Post(context: writer)
            post.title = "One more"
            try writer.save()
        }
        print(try await counts.next() ?? 0)           // 4, after the save

        XCTAssertEqual(printed.take(), ["3", "4"])
        let total = try await reader.perform { try reader.count(for: FetchRequest<Post>()) }
        XCTAssertEqual(total, 4)
    }

    func testLiveCountsInOrder() async throws {
        let container = try ExampleStack.seeded()
        let reader = container.newBackgroundContext()
        let writer = container.newBackgroundContext()
        var counts = reader.changes(forCountOf: FetchRequest<Post>()).makeAsyncIterator()
        let first = try await counts.next()
        XCTAssertEqual(first, 3)
        try await writer.perform {
            _ = try Post(context: writer)
            try writer.save()
        }
        let second = try await counts.next()
        XCTAssertEqual(second, 4)
    }

    func testQueryGenerations() throws {
        let container = try ExampleStack.seeded()
        let reader = container.newBackgroundContext()
        let writer = container.newBackgroundContext()

        try reader.performAndWait {
            try reader.setQueryGenerationFrom(.current)          // pin the latest committed state
            print(try reader.count(for: FetchRequest<Post>()))   // 3
        }
        try writer.performAndWait {
            let post = try Post(context: writer)
            post.title = "Meanwhile"
            try writer.save()
        }
        try reader.performAndWait {
            print(try reader.count(for: FetchRequest<Post>()))   // still 3: the pinned state
            try reader.setQueryGenerationFrom(.unpinned)         // read the latest again
            print(try reader.count(for: FetchRequest<Post>()))   // 4
        }

        // The same sequence, checked.
        let checker = container.newBackgroundContext()
        let counts = try checker.performAndWait { () throws -> [Int] in
            try checker.setQueryGenerationFrom(.current)
            let pinned = try checker.count(for: FetchRequest<Post>())
            try writer.performAndWait {
                _ = try Post(context: writer)
                try writer.save()
            }
            let stillPinned = try checker.count(for: FetchRequest<Post>())
            try checker.setQueryGenerationFrom(.unpinned)
            return [pinned, stillPinned, try checker.count(for: FetchRequest<Post>())]
        }
        XCTAssertEqual(counts, [4, 4, 5])
    }

    func testUndo() throws {
        let container = try ExampleStack.seeded()
        let context = container.viewContext
        let post = try context.fetch(FetchRequest<Post>(entityName: "Post", predicate: "title == 'Misty Morning'"))[0]
        XCTAssertEqual(post.comments.count, 2)

        context.undoManager = UndoManager()
        context.delete(post)                          // its comments cascade
        context.processPendingChanges()               // the end of an event: one undo group
        context.undoManager?.undo()                   // the post and its comments are back
        print(post.isDeleted, post.comments.count)    // false 2

        XCTAssertFalse(post.isDeleted)
        XCTAssertEqual(post.comments.count, 2)
        XCTAssertFalse(post.comments.contains(where: \.isDeleted))
        XCTAssertEqual(context.deletedObjects.count, 0)
    }
}
