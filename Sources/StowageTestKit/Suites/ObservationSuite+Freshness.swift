import Foundation
import StoreCore
import XCTest

extension ObservationSuite {
    /// A fault whose object another context deleted fires as a deleted object with empty values
    /// by default, and reports `objectNotFound` with `shouldDeleteInaccessibleFaults` off; with a
    /// staleness interval of 0 a fault reads the latest stored values, not its fetch's.
    func testInaccessibleFaultsAndStaleness() {
        run { backend in
            let stack = try backend.makeStack(model: BlogModel.make())
            let writer = stack.newContext()
            let ids = try writer.performAndWait {
                let posts = try (0..<3).map { n in
                    let post = try Post(context: writer)
                    post.title = "post \(n)"
                    return post
                }
                try writer.save()
                return posts.map(\.objectID)
            }
            let reader = stack.newContext()
            reader.stalenessInterval = 0
            try reader.performAndWait {
                var request = FetchRequest<Post>()
                request.sortDescriptors = [.ascending("title")]
                let posts = try reader.fetch(request)     // faults, with their rows beside them
                XCTAssertEqual(posts.count, 3, "\(backend)")
                try writer.performAndWait {
                    writer.delete(try writer.existingObject(with: ids[0]))
                    writer.delete(try writer.existingObject(with: ids[1]))
                    (try writer.existingObject(with: ids[2]) as? Post)?.title = "renamed"
                    try writer.save()
                }
                XCTAssertEqual(try posts[0].value(forKey: "title") as? String, nil, "\(backend): an inaccessible fault has empty values")
                XCTAssertTrue(posts[0].isDeleted, "\(backend): and is marked deleted")
                XCTAssertFalse(reader.hasChanges, "\(backend): but is no change to save")
                XCTAssertEqual(posts[2].title, "renamed", "\(backend): staleness interval 0 reads the store, not the fetched row")
                reader.shouldDeleteInaccessibleFaults = false
                XCTAssertThrowsError(try posts[1].value(forKey: "title"), "\(backend)") { error in
                    XCTAssertEqual((error as? StoreError)?.code, .objectNotFound, "\(backend)")
                }
            }
        }
    }

    /// Within the staleness interval a fault is filled from the row its fetch brought, not from
    /// a value saved since (``testInaccessibleFaultsAndStaleness()`` checks an interval of zero).
    func testAFaultKeepsItsFetchedRowWithinTheStalenessInterval() {
        run { backend in
            let stack = try backend.makeStack(model: BlogModel.make())
            let writer = stack.newContext()
            let id = try writer.performAndWait {
                let post = try Post(context: writer)
                post.title = "first"
                try writer.save()
                return post.objectID
            }
            let reader = stack.newContext()
            reader.stalenessInterval = 3600
            try reader.performAndWait {
                let post = try XCTUnwrap(try reader.fetch(FetchRequest<Post>()).first)
                XCTAssertTrue(post.isFault, "\(backend)")
                try writer.performAndWait {
                    (try writer.existingObject(with: id) as? Post)?.title = "second"
                    try writer.save()
                }
                XCTAssertEqual(post.title, "first", "\(backend): an hour's interval: the fetched row is fresh")
            }
        }
    }

    /// An object marked with `detectConflicts(for:)` fails the save when another context changed
    /// it, though this context did not, and the save succeeds once it is refreshed.
    func testDetectConflictsChecksAnUnchangedObject() {
        run { backend in
            let stack = try backend.makeStack(model: BlogModel.make())
            let context = stack.newContext()
            let other = stack.newContext()
            try context.performAndWait {
                let author = try Author(context: context)
                author.name = "ada"
                try context.save()
                try other.performAndWait {
                    (try other.existingObject(with: author.objectID) as? Author)?.name = "grace"
                    try other.save()
                }
                try context.detectConflicts(for: author)
                let post = try Post(context: context)
                post.title = "by ada"
                XCTAssertThrowsError(try context.save(), "\(backend)") { error in
                    XCTAssertEqual((error as? MergeConflictError)?.conflicts.first?.objectID, author.objectID, "\(backend)")
                }
                context.refresh(author, mergeChanges: false)
                try context.detectConflicts(for: author)
                XCTAssertNoThrow(try context.save(), "\(backend): no conflict once the object was read again")
                XCTAssertEqual(author.name, "grace", "\(backend)")
            }
            context.userInfo["checked"] = true
            XCTAssertEqual(context.userInfo["checked"] as? Bool, true, "\(backend)")
        }
    }

    /// Fetching again what a context holds: objects held with their values keep them (as in Core
    /// Data; a store may leave those rows' values unread), while faults, new rows, a refreshing
    /// request and a child context's rows get the stored values — or the parent's.
    func testRefetchKeepsHeldValuesAndReadsTheRest() {
        run { backend in
            let stack = try backend.makeStack(model: BlogModel.make())
            let writer = stack.newContext()
            let insert = { (title: String) in
                try writer.performAndWait {
                    try Post(context: writer).title = title
                    try writer.save()
                }
            }
            let retitle = { (old: String, new: String) in
                try writer.performAndWait {
                    var request = FetchRequest<Post>()
                    request.predicate = try StorePredicate(format: "title == %@", old)
                    for post in try writer.fetch(request) { post.title = new }
                    try writer.save()
                }
            }
            for title in ["a", "b", "c"] { try insert(title) }
            var byTitle = FetchRequest<Post>()
            byTitle.sortDescriptors = [.ascending("title")]
            byTitle.returnsObjectsAsFaults = false

            let reader = stack.newContext()
            let held = try reader.performAndWait {
                let held = try reader.fetch(byTitle)
                reader.refresh(held[2], mergeChanges: false)
                return held.map(\.objectID)
            }
            try retitle("b", "b, saved elsewhere")
            try retitle("c", "c, saved elsewhere")
            try insert("d")
            let child = ManagedObjectContext(concurrencyType: .privateQueue)
            child.parent = reader
            try child.performAndWait {
                XCTAssertEqual(try child.fetch(byTitle).map(\.title), ["a", "b", "c, saved elsewhere", "d"],
                               "\(backend): a child gets what its parent holds, and the stored values of the rest")
            }
            try reader.performAndWait {
                let again = try reader.fetch(byTitle)
                XCTAssertEqual(again.prefix(3).map(\.objectID), held, "\(backend)")
                XCTAssertEqual(again.map(\.title), ["a", "b", "c, saved elsewhere", "d"],
                               "\(backend): held values kept, a fault and a new row read from the store")
                XCTAssertFalse(reader.hasChanges, "\(backend)")
                var refreshing = byTitle
                refreshing.shouldRefreshRefetchedObjects = true
                XCTAssertEqual(try reader.fetch(refreshing).map(\.title), ["a", "b, saved elsewhere", "c, saved elsewhere", "d"],
                               "\(backend): a refreshing fetch reads the stored values")
            }
        }
    }
}
