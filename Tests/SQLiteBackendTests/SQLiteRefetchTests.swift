import Foundation
@testable import SQLiteBackend
import StoreCore
import StoreTestSupport
import XCTest

/// Fetching again what a context already holds: objects held with their values keep them (the
/// store may leave those rows' values unread), and everything else — new rows, faults, refreshed
/// requests, a child context's rows — comes with the stored values.
final class SQLiteRefetchTests: XCTestCase {
    /// Saves `title` over the post titled `old`, in another context.
    private func retitle(_ old: String, to title: String, in container: PersistentContainer) throws {
        let other = container.newBackgroundContext()
        try other.performAndWait {
            var request = FetchRequest<Post>()
            request.predicate = try StorePredicate(format: "title == %@", old)
            for post in try other.fetch(request) { post.title = title }
            try other.save()
        }
    }

    private var byTitle: FetchRequest<Post> {
        var request = FetchRequest<Post>()
        request.sortDescriptors = [.ascending("title")]
        request.returnsObjectsAsFaults = false
        return request
    }

    func testHeldObjectsKeepTheirValuesWhileNewRowsAndFaultsGetTheStoredOnes() throws {
        let stack = try SQLiteTestStore()
        try stack.savePosts(["a", "b", "c"])
        let context = stack.container.newBackgroundContext()
        try context.performAndWait {
            let first = try context.fetch(byTitle)
            XCTAssertEqual(first.map(\.title), ["a", "b", "c"])
            context.refresh(first[2], mergeChanges: false)
            XCTAssertTrue(first[2].isFault)

            try retitle("b", to: "b, saved elsewhere", in: stack.container)
            try retitle("c", to: "c, saved elsewhere", in: stack.container)
            try stack.savePosts(["d"])

            let again = try context.fetch(byTitle)
            XCTAssertEqual(again.count, 4)
            XCTAssertTrue(again[0] === first[0] && again[1] === first[1] && again[2] === first[2], "the same objects")
            XCTAssertEqual(again[1].title, "b", "an object held with values keeps them, as in Core Data")
            XCTAssertEqual(again[2].title, "c, saved elsewhere", "a fault gets the stored values")
            XCTAssertEqual(again[3].title, "d", "a new row gets its values")
            XCTAssertFalse(again.contains { $0.hasChanges })
            XCTAssertEqual(again[1].committedValues(forKeys: ["title"])["title"] as? String, "b")
        }
    }

    func testRefreshingRefetchedObjectsReadsTheirStoredValues() throws {
        let stack = try SQLiteTestStore()
        try stack.savePosts(["a", "b"])
        let context = stack.container.newBackgroundContext()
        try context.performAndWait {
            var request = byTitle
            let first = try context.fetch(request)
            XCTAssertEqual(first.map(\.title), ["a", "b"])
            try retitle("b", to: "b2", in: stack.container)
            request.shouldRefreshRefetchedObjects = true
            let again = try context.fetch(request)
            XCTAssertTrue(again[1] === first[1])
            XCTAssertEqual(again.map(\.title), ["a", "b2"])
            XCTAssertEqual(again[1].committedValues(forKeys: ["title"])["title"] as? String, "b2")
        }
    }

    func testAChildContextGetsWhatTheParentHoldsAndTheStoredValuesOfTheRest() throws {
        let stack = try SQLiteTestStore()
        try stack.savePosts(["a", "b", "c"])
        let parent = stack.container.newBackgroundContext()
        try parent.performAndWait {
            let held = try parent.fetch(byTitle)
            parent.refresh(held[2], mergeChanges: false)
        }
        try retitle("b", to: "b, saved elsewhere", in: stack.container)
        try retitle("c", to: "c, saved elsewhere", in: stack.container)
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = parent
        try child.performAndWait {
            XCTAssertEqual(try child.fetch(byTitle).map(\.title), ["a", "b", "c, saved elsewhere"])
        }
    }
}
