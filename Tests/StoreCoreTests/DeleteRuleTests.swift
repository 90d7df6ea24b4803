import Foundation
import StoreCore
import StoreTestSupport
import XCTest

final class DeleteRuleTests: XCTestCase {
    func testCascadeDeletesDestinations() throws {
        let container = try TestStack.container()
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let post = try Post(context: context)
            post.title = "Cascade"
            for n in 0..<3 {
                let comment = try Comment(context: context)
                comment.text = "\(n)"
                comment.post = post
            }
            try context.save()
            context.delete(post)
            context.processPendingChanges()
            XCTAssertEqual(context.deletedObjects.count, 4)
            try context.save()
            XCTAssertEqual(try context.count(for: FetchRequest<Comment>()), 0)
            XCTAssertEqual(try context.count(for: FetchRequest<Post>()), 0)
        }
    }

    func testNullifyRemovesTheObjectFromTheInverse() throws {
        let context = try TestStack.context()
        try context.performAndWait {
            let post = try Post(context: context)
            post.title = "Nullify"
            let tag = try Tag(context: context)
            tag.name = "t"
            let comment = try Comment(context: context)
            comment.post = post
            post.tags.insert(tag)
            try context.save()
            context.delete(comment)
            context.delete(tag)
            try context.save()
            XCTAssertTrue(post.comments.isEmpty)
            XCTAssertTrue(post.tags.isEmpty)
            XCTAssertFalse(post.hasChanges)
            XCTAssertEqual(try context.count(for: FetchRequest<Post>()), 1)
        }
    }

    func testDenyRefusesWithAClearErrorAndChangesNothing() throws {
        let container = try TestStack.container()
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let author = try Author(context: context)
            author.name = "Ada"
            let post = try Post(context: context)
            post.title = "Denied"
            post.author = author
            try context.save()

            context.delete(author)
            XCTAssertThrowsError(try context.save()) { error in
                let failure = (error as? ObjectValidationError)?.allErrors.first
                XCTAssertEqual(failure?.code, .deleteDenied)
                XCTAssertEqual(failure?.entity, "Author")
                XCTAssertEqual(failure?.key, "posts")
                XCTAssertEqual(failure?.objectID, author.objectID)
            }
            XCTAssertTrue(author.isDeleted, "the context keeps its change")
            XCTAssertTrue(post.author === author, "no rule ran on the denied object")
            let reader = container.newBackgroundContext()
            let count = try reader.performAndWait { try reader.count(for: FetchRequest<Author>()) }
            XCTAssertEqual(count, 1, "the store is unchanged")

            // Emptying the relationship lets the deletion through.
            post.author = nil
            try context.save()
            XCTAssertEqual(try reader.performAndWait { try reader.count(for: FetchRequest<Author>()) }, 0)
        }
    }

    func testNoActionLeavesDestinationsAlone() throws {
        let model = try ManagedObjectModel {
            EntityDescription("Folder") { .toMany("files", destination: "File", inverse: "folder", deleteRule: .noAction) }
            EntityDescription("File") { .toOne("folder", destination: "Folder", inverse: "files") }
        }
        let context = try TestStack.context(model)
        try context.performAndWait {
            let folder = try context.insertNewObject(forEntityName: "Folder")
            let file = try context.insertNewObject(forEntityName: "File")
            try file.setValue(folder, forKey: "folder")
            try context.save()
            context.delete(folder)
            try context.save()
            XCTAssertFalse(file.isDeleted)
            XCTAssertEqual(try context.count(for: FetchRequest<ManagedObject>(entityName: "File")), 1)
        }
    }

    func testDeletingAnInsertedObjectJustForgetsIt() throws {
        let context = try TestStack.context()
        try context.performAndWait {
            let post = try Post(context: context)
            post.title = "Fleeting"
            let comment = try Comment(context: context)
            comment.post = post
            context.delete(post)
            context.processPendingChanges()
            XCTAssertFalse(context.hasChanges)
            XCTAssertTrue(context.insertedObjects.isEmpty)
            try context.save()
            XCTAssertEqual(try context.count(for: FetchRequest<Comment>()), 0)
        }
    }
}
