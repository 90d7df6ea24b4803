import Foundation
import StoreCore
import StoreTestSupport
import XCTest

/// `post.$comments`: member-by-member changes to a typed relationship.
final class MutableRelationshipTests: XCTestCase {
    func testInsertAndRemoveKeepInversesAndRecordTheChange() throws {
        let container = try TestStack.container()
        let context = container.newBackgroundContext()
        let id = try context.performAndWait {
            let post = try Post(context: context)
            post.title = "Many"
            let comments = try (0..<300).map { n -> Comment in
                let comment = try Comment(context: context)
                comment.text = "c\(n)"
                return comment
            }
            for comment in comments { XCTAssertTrue(post.$comments.insert(comment)) }
            XCTAssertFalse(post.$comments.insert(comments[0]), "already a member")
            XCTAssertEqual(post.$comments.count, 300)
            XCTAssertTrue(comments.allSatisfy { $0.post === post }, "every inverse is set")
            XCTAssertEqual(post.comments, Set(comments))

            XCTAssertTrue(post.$comments.remove(comments[5]))
            XCTAssertFalse(post.$comments.remove(comments[5]), "no longer a member")
            XCTAssertNil(comments[5].post)
            XCTAssertFalse(post.$comments.contains(comments[5]))
            XCTAssertTrue(post.$comments.contains(comments[6]))
            try context.save()

            XCTAssertTrue(post.$comments.remove(comments[6]))
            XCTAssertTrue(post.hasChanges, "a removal through the projection is a change")
            XCTAssertEqual(Set(post.changedValues().keys), ["comments"])
            try context.save()
            return post.objectID
        }
        let reader = container.newBackgroundContext()
        try reader.performAndWait {
            let post = try XCTUnwrap(reader.existingObject(with: id) as? Post)
            XCTAssertEqual(post.comments.count, 298)
            XCTAssertEqual(Set(post.$comments.map(\.text)), Set((0..<300).filter { $0 != 5 && $0 != 6 }.map { "c\($0)" }))
        }
    }

    func testMovingAMemberTakesItFromItsOldOwner() throws {
        let context = try TestStack.context()
        try context.performAndWait {
            let a = try Post(context: context)
            let b = try Post(context: context)
            let comment = try Comment(context: context)
            a.$comments.insert(comment)
            b.$comments.insert(comment)
            XCTAssertTrue(comment.post === b)
            XCTAssertTrue(a.comments.isEmpty)

            let tag = try Tag(context: context)
            a.$tags.insert(tag)
            b.$tags.insert(tag)
            XCTAssertEqual(tag.posts, [a, b], "many-to-many keeps both")
            tag.$posts.removeAll()
            XCTAssertTrue(a.tags.isEmpty && b.tags.isEmpty)
        }
    }

    func testOrderedInsertAtPositionAndRemovalKeepTheOrder() throws {
        let container = try TestStack.container()
        let context = container.newBackgroundContext()
        let id = try context.performAndWait {
            let post = try Post(context: context)
            post.title = "Gallery"
            let photos = try ["a", "b", "c", "d"].map { caption in
                let photo = try Photo(context: context)
                photo.caption = caption
                return photo
            }
            post.$photos.insert(contentsOf: photos)
            XCTAssertEqual(post.photos.map(\.caption), ["a", "b", "c", "d"])
            post.$photos.remove(photos[1])
            XCTAssertEqual(post.photos.map(\.caption), ["a", "c", "d"], "removal keeps the others in order")
            post.$photos.insert(photos[3], at: 0)
            XCTAssertEqual(post.photos.map(\.caption), ["d", "a", "c"], "an existing member moves")
            post.$photos.insert(photos[1], at: 1)
            XCTAssertEqual(post.photos.map(\.caption), ["d", "b", "a", "c"])
            XCTAssertTrue(photos[1].post === post)
            try context.save()
            return post.objectID
        }
        let reader = container.newBackgroundContext()
        try reader.performAndWait {
            let post = try XCTUnwrap(reader.existingObject(with: id) as? Post)
            XCTAssertEqual(post.photos.map(\.caption), ["d", "b", "a", "c"])
        }
    }

    func testToOneActsAsASetOfAtMostOne() throws {
        let context = try TestStack.context()
        try context.performAndWait {
            let post = try Post(context: context)
            let other = try Post(context: context)
            let comment = try Comment(context: context)
            XCTAssertEqual(comment.$post.count, 0)
            XCTAssertTrue(comment.$post.insert(post))
            XCTAssertEqual(post.comments, [comment])
            XCTAssertFalse(comment.$post.remove(other), "not the destination")
            XCTAssertTrue(comment.$post.remove(post))
            XCTAssertNil(comment.post)
            XCTAssertTrue(post.comments.isEmpty)
        }
    }
}
