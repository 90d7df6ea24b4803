import Foundation
import StoreCore
import StoreTestSupport
import XCTest

/// Rollback, reset, refresh, parent/child contexts and merge policies.
final class ContextLifecycleTests: XCTestCase {
    func testRollbackRestoresSavedStateAndForgetsInsertions() throws {
        let context = try TestStack.context()
        try context.performAndWait {
            let post = try Post(context: context)
            post.title = "Saved"
            try context.save()
            post.title = "Changed"
            let comment = try Comment(context: context)
            comment.post = post
            let other = try Post(context: context)
            other.title = "New"
            context.rollback()
            XCTAssertFalse(context.hasChanges)
            XCTAssertEqual(post.title, "Saved")
            XCTAssertTrue(post.comments.isEmpty)
            XCTAssertNil(comment.managedObjectContext)
            XCTAssertNil(other.managedObjectContext)
            XCTAssertEqual(try context.count(for: FetchRequest<Post>()), 1)

            context.delete(post)
            context.rollback()
            XCTAssertFalse(post.isDeleted)
            try context.save()
            XCTAssertEqual(try context.count(for: FetchRequest<Post>()), 1)
        }
    }

    func testResetForgetsEveryObject() throws {
        let context = try TestStack.context()
        try context.performAndWait {
            let post = try Post(context: context)
            post.title = "Saved"
            try context.save()
            let id = post.objectID
            post.title = "unsaved"
            context.reset()
            XCTAssertTrue(context.registeredObjects.isEmpty)
            XCTAssertNil(post.managedObjectContext)
            let fresh = try XCTUnwrap(context.existingObject(with: id) as? Post)
            XCTAssertFalse(fresh === post)
            XCTAssertEqual(fresh.title, "Saved")
        }
    }

    func testRefreshDiscardsOrKeepsChanges() throws {
        let container = try TestStack.container()
        let context = container.newBackgroundContext()
        let other = container.newBackgroundContext()
        try context.performAndWait {
            let post = try Post(context: context)
            post.title = "One"
            post.views = 1
            try context.save()
            let id = post.objectID
            try other.performAndWait {
                let copy = try XCTUnwrap(other.existingObject(with: id) as? Post)
                copy.views = 2
                try other.save()
            }
            post.title = "Mine"
            context.refresh(post, mergeChanges: true)
            XCTAssertEqual(post.title, "Mine", "my change is kept")
            XCTAssertEqual(post.views, 2, "other properties take the saved values")
            context.refresh(post, mergeChanges: false)
            XCTAssertTrue(post.isFault)
            XCTAssertEqual(post.title, "One")
            XCTAssertFalse(post.hasChanges)
        }
    }

    func testChildSavePushesIntoParentAndOnlyTheRootReachesTheStore() throws {
        let container = try TestStack.container()
        let parent = container.newBackgroundContext()
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = parent
        let reader = container.newBackgroundContext()

        let parentPostID = try parent.performAndWait {
            let post = try Post(context: parent)
            post.title = "Parent draft"
            return post.objectID
        }
        let childPostID = try child.performAndWait {
            // The child sees the parent's unsaved object.
            let posts = try child.fetch(FetchRequest<Post>())
            XCTAssertEqual(posts.map(\.title), ["Parent draft"])
            let fromParent = try XCTUnwrap(posts.first)
            XCTAssertEqual(fromParent.objectID, parentPostID)
            fromParent.views = 7
            let post = try Post(context: child)
            post.title = "Child draft"
            let comment = try Comment(context: child)
            comment.post = post
            try child.save()
            XCTAssertFalse(child.hasChanges)
            return post.objectID
        }
        XCTAssertEqual(try reader.performAndWait { try reader.count(for: FetchRequest<Post>()) }, 0, "nothing reached the store yet")
        try parent.performAndWait {
            XCTAssertEqual(parent.insertedObjects.count, 3)
            let pushed = try XCTUnwrap(parent.registeredObject(for: childPostID) as? Post)
            XCTAssertEqual(pushed.title, "Child draft")
            XCTAssertEqual(pushed.comments.count, 1)
            XCTAssertEqual((parent.registeredObject(for: parentPostID) as? Post)?.views, 7)
            try parent.save()
        }
        try reader.performAndWait {
            var request = FetchRequest<Post>()
            request.sortDescriptors = [.ascending("title")]
            let posts = try reader.fetch(request)
            XCTAssertEqual(posts.map(\.title), ["Child draft", "Parent draft"])
            XCTAssertEqual(posts.map(\.views), [0, 7])
            XCTAssertEqual(posts[0].comments.count, 1)
        }
    }

    func testChildDeletionAndFailedChildSaveLeaveParentConsistent() throws {
        let container = try TestStack.container()
        let parent = container.newBackgroundContext()
        let postID = try parent.performAndWait {
            let post = try Post(context: parent)
            post.title = "Keep"
            let comment = try Comment(context: parent)
            comment.post = post
            try parent.save()
            return post.objectID
        }
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = parent
        try child.performAndWait {
            let post = try XCTUnwrap(child.existingObject(with: postID) as? Post)
            post.title = ""
            XCTAssertThrowsError(try child.save(), "empty title is too short")
            XCTAssertTrue(child.hasChanges)
            post.title = "Child edit"
            child.delete(try XCTUnwrap(post.comments.first))
            try child.save()
        }
        try parent.performAndWait {
            let post = try XCTUnwrap(parent.registeredObject(for: postID) as? Post)
            XCTAssertEqual(post.title, "Child edit")
            XCTAssertTrue(post.comments.isEmpty)
            XCTAssertEqual(parent.deletedObjects.count, 1)
            try parent.save()
            XCTAssertEqual(try parent.count(for: FetchRequest<Comment>()), 0)
        }
    }

    /// Two contexts that both read a saved post; the second changes it with `change` and saves
    /// first, so the first context's next save of that post is in conflict.
    private func contextsInConflict(
        _ change: (Post) -> Void
    ) throws -> (first: ManagedObjectContext, second: ManagedObjectContext, id: ManagedObjectID) {
        let container = try TestStack.container()
        let first = container.newBackgroundContext()
        let second = container.newBackgroundContext()
        let id = try first.performAndWait {
            let post = try Post(context: first)
            post.title = "Base"
            try first.save()
            return post.objectID
        }
        try first.performAndWait { _ = (try first.existingObject(with: id) as? Post)?.title }
        try second.performAndWait {
            change(try XCTUnwrap(second.existingObject(with: id) as? Post))
            try second.save()
        }
        return (first, second, id)
    }

    func testOptimisticLockingConflictAndMergePolicies() throws {
        let (first, second, id) = try contextsInConflict { $0.views = 10 }
        try first.performAndWait {
            let post = try XCTUnwrap(first.registeredObject(for: id) as? Post)
            post.title = "First"
            XCTAssertThrowsError(try first.save()) { error in
                let conflict = (error as? MergeConflictError)?.conflicts.first
                XCTAssertEqual(conflict?.objectID, id)
                XCTAssertEqual(conflict?.expectedVersion, 1)
                XCTAssertEqual(conflict?.storeVersion, 2)
            }
            XCTAssertTrue(post.hasChanges)
            first.mergePolicy = .mergeByPropertyObjectTrump
            try first.save()
            XCTAssertEqual(post.title, "First")
            XCTAssertEqual(post.views, 10, "the other context's change survives")
        }
        try second.performAndWait {
            let post = try XCTUnwrap(second.registeredObject(for: id) as? Post)
            post.title = "Second"
            second.mergePolicy = .rollback
            try second.save()
            XCTAssertEqual(post.title, "First", "rollback takes the store's values")
        }
    }

    func testStoreTrumpKeepsStoreValuesForPropertiesChangedElsewhere() throws {
        let (first, _, id) = try contextsInConflict { $0.title = "Theirs" }
        try first.performAndWait {
            let post = try XCTUnwrap(first.registeredObject(for: id) as? Post)
            post.title = "Mine"
            post.views = 5
            first.mergePolicy = .mergeByPropertyStoreTrump
            try first.save()
            XCTAssertEqual(post.title, "Theirs")
            XCTAssertEqual(post.views, 5)
        }
    }
}

extension ContextLifecycleTests {
    func testChildAdoptsPermanentIDsAfterTheParentSaves() throws {
        let container = try TestStack.container()
        let parent = container.newBackgroundContext()
        let child = ManagedObjectContext(concurrencyType: .privateQueue)
        child.parent = parent
        let draft = try child.performAndWait {
            let post = try Post(context: child)
            post.title = "Draft"
            try child.save()
            return post
        }
        try parent.performAndWait { try parent.save() }
        try child.performAndWait {
            XCTAssertFalse(draft.objectID.isTemporaryID)
            let fetched = try child.fetch(FetchRequest<Post>())
            XCTAssertEqual(fetched.count, 1)
            XCTAssertTrue(fetched[0] === draft, "one object per ID, even across the parent's save")
            draft.title = "Edited in child"
            try child.save()
        }
        try parent.performAndWait {
            try parent.save()
            let reader = container.newBackgroundContext()
            XCTAssertEqual(try reader.performAndWait { try reader.fetch(FetchRequest<Post>()).map(\.title) }, ["Edited in child"])
        }
    }
}
