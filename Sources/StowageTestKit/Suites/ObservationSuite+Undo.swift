import Foundation
import StoreCore
import XCTest

extension ObservationSuite {
    /// Undoing a change saved since puts the values before it back as unsaved changes; the
    /// committed values stay the saved ones until the next save.
    func testUndoOfASavedChangeKeepsTheSavedValuesCommitted() {
        run { backend in
            let stack = try backend.makeStack(model: BlogModel.make())
            let context = stack.newContext()
            try context.performAndWait {
                let undo = UndoManager()
                context.undoManager = undo
                let post = try Post(context: context)
                post.title = "first"
                try context.save()
                undo.removeAllActions()
                post.title = "second"
                context.processPendingChanges()
                try context.save()
                XCTAssertEqual(post.committedValues(forKeys: ["title"])["title"] as? String, "second", "\(backend)")

                undo.undo()
                XCTAssertEqual(post.title, "first", "\(backend)")
                XCTAssertTrue(post.hasChanges, "\(backend): the store holds the undone change")
                XCTAssertEqual(post.committedValues(forKeys: ["title"])["title"] as? String, "second", "\(backend): as saved")
                XCTAssertEqual(post.changedValues()["title"] as? String, "first", "\(backend)")
                try context.save()
                XCTAssertEqual(post.committedValues(forKeys: ["title"])["title"] as? String, "first", "\(backend)")
            }
            let other = stack.newContext()
            try other.performAndWait {
                XCTAssertEqual(try other.fetch(FetchRequest<Post>()).map(\.title), ["first"], "\(backend)")
            }
        }
    }

    /// Undo and redo of attribute changes, inserts, and a delete with its cascade and inverses —
    /// before and after a save — and rollback clearing the undo stack.
    func testUndoRestoresDeletedObjectsWithCascadesAndInverses() {
        run { backend in
            let stack = try backend.makeStack(model: BlogModel.make())
            let context = stack.newContext()
            try context.performAndWait {
                XCTAssertNil(context.undoManager, "\(backend): off by default, as in Core Data")
                let undo = UndoManager()
                context.undoManager = undo
                let author = try Author(context: context)
                author.name = "ada"
                let post = try Post(context: context)
                post.title = "first"
                post.author = author
                let comments = try ["one", "two"].map { text in
                    let comment = try Comment(context: context)
                    comment.text = text
                    comment.post = post
                    return comment
                }
                try context.save()
                undo.removeAllActions()

                // An attribute change, undone and redone.
                post.title = "second"
                context.processPendingChanges()
                undo.undo()
                XCTAssertEqual(post.title, "first", "\(backend)")
                XCTAssertFalse(context.hasChanges, "\(backend): back to the saved state")
                XCTAssertTrue(undo.canRedo, "\(backend)")
                undo.redo()
                XCTAssertEqual(post.title, "second", "\(backend)")
                XCTAssertTrue(context.hasChanges, "\(backend)")
                try context.save()

                // A delete with a cascade (comments) and a nullified inverse (author.posts).
                context.delete(post)
                context.processPendingChanges()
                XCTAssertTrue(comments.allSatisfy(\.isDeleted), "\(backend): the cascade ran")
                XCTAssertEqual(author.posts, [], "\(backend): the inverse was nullified")
                undo.undo()
                XCTAssertFalse(post.isDeleted, "\(backend)")
                XCTAssertTrue(comments.allSatisfy { !$0.isDeleted }, "\(backend): the cascaded comments are back")
                XCTAssertEqual(post.comments, Set(comments), "\(backend): with their relationship")
                XCTAssertTrue(comments.allSatisfy { $0.post === post }, "\(backend): both sides")
                XCTAssertEqual(author.posts, [post], "\(backend): and the inverse")
                XCTAssertFalse(context.hasChanges, "\(backend)")

                // The same delete saved, then undone: the objects come back as new ones and save again.
                undo.redo()
                XCTAssertTrue(post.isDeleted, "\(backend): redo deletes again")
                try context.save()
                XCTAssertEqual(try context.count(for: FetchRequest<Comment>()), 0, "\(backend)")
                undo.undo()
                XCTAssertEqual(context.insertedObjects.count, 3, "\(backend): the post and its comments, inserted again")
                XCTAssertEqual(author.posts, [post], "\(backend)")
                try context.save()
                let other = stack.newContext()
                try other.performAndWait {
                    let posts = try other.fetch(FetchRequest<Post>())
                    XCTAssertEqual(posts.map(\.title), ["second"], "\(backend)")
                    XCTAssertEqual(Set(posts.first?.comments.map(\.text) ?? []), ["one", "two"], "\(backend)")
                    XCTAssertEqual(posts.first?.author?.name, "ada", "\(backend)")
                }

                // An insert, undone and redone.
                let tag = try Tag(context: context)
                tag.name = "swift"
                context.processPendingChanges()
                undo.undo()
                XCTAssertEqual(context.insertedObjects, [], "\(backend): the insert is undone")
                undo.redo()
                XCTAssertEqual(context.insertedObjects, [tag], "\(backend)")
                XCTAssertEqual(tag.name, "swift", "\(backend)")

                // Rollback forgets the undo stack, as in Core Data.
                context.rollback()
                XCTAssertFalse(undo.canUndo, "\(backend)")
                XCTAssertFalse(undo.canRedo, "\(backend)")
            }
        }
    }
}
