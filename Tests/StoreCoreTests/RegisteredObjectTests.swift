import Foundation
import StoreCore
import StoreTestSupport
import XCTest

/// Contexts let go of unchanged objects nobody references (Core Data's default), keep changed
/// ones, and keep uniquing: one object per ID while it is alive.
final class RegisteredObjectTests: XCTestCase {
    /// Inserts and saves `count` posts; returns their IDs (nothing else keeps the posts).
    @discardableResult
    private func savedPosts(_ count: Int, in context: ManagedObjectContext) throws -> [ManagedObjectID] {
        var ids: [ManagedObjectID] = []
        for index in 0..<count {
            let post = try Post(context: context)
            post.title = "Post \(index)"
        }
        try context.save()
        for object in context.registeredObjects { ids.append(object.objectID) }
        return ids.sorted { ($0.primaryKey ?? 0) < ($1.primaryKey ?? 0) }
    }

    func testUnreferencedUnchangedObjectsAreReleasedAndComeBackAsFaults() throws {
        let context = try TestStack.context()
        try context.performAndWait {
            let ids = try savedPosts(3000, in: context)
            let changedID = ids[1]
            try XCTUnwrap(context.object(with: changedID) as? Post).title = "Changed, not saved"
            XCTAssertNotNil(context.registeredObject(for: ids[2999]))
            // Grow the context past the next release pass (unsaved insertions), then fetch; nothing
            // outside the context holds the old posts.
            for index in 0..<5000 { try Post(context: context).title = "New \(index)" }
            var one = FetchRequest<Post>()
            one.fetchLimit = 1
            _ = try context.fetch(one)
            XCTAssertNil(context.registeredObject(for: ids[2999]), "an unchanged object nothing references is let go")
            XCTAssertLessThanOrEqual(context.registeredObjects.count, 5002, "only changed objects (and the fetched one) stay")
            XCTAssertEqual(context.insertedObjects.count, 5000, "inserted objects always stay")

            let again = try XCTUnwrap(context.object(with: ids[2999]) as? Post)
            XCTAssertTrue(again.isFault)
            XCTAssertEqual(again.title, "Post 2999", "it comes back as a fault that reloads its values")
            XCTAssertTrue(try context.object(with: ids[2999]) === again, "one object per ID while it lives")

            let changed = try XCTUnwrap(context.registeredObject(for: changedID) as? Post, "a changed object stays")
            XCTAssertEqual(changed.title, "Changed, not saved")
            XCTAssertTrue(context.hasChanges)
        }
    }

    func testRetainsRegisteredObjectsKeepsEveryObject() throws {
        let context = try TestStack.context()
        context.retainsRegisteredObjects = true
        try context.performAndWait {
            let ids = try savedPosts(3000, in: context)
            _ = try savedPosts(5000, in: context)
            XCTAssertNotNil(context.registeredObject(for: ids[2999]))
            XCTAssertEqual(context.registeredObjects.count, 8000)
        }
    }
}
