import Foundation
import XCTest
import Stowage

final class Post: ManagedObject {
    @Attribute var title: String
    @Attribute var timestamp: Date?
    @Relationship var comments: Set<Comment>
}

final class Comment: ManagedObject {
    @Attribute var text: String
    @Relationship var post: Post?
}

/// GettingStarted.md, from the classes above (declared at file scope, where every article's
/// examples use them) to a store on disk.
final class GettingStartedExamples: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = try ExampleStack.makeDirectory()
    }

    override func tearDown() {
        ExampleStack.removeDirectory(directory)
        super.tearDown()
    }

    func testDefineOpenInsertSaveAndFetch() throws {
        let storeURL = directory.appendingPathComponent("Blog.sqlite")

        let model = try ManagedObjectModel {
            EntityDescription("Post", class: Post.self) {
                .attribute("title", .string, optional: false, defaultValue: "")
                .attribute("timestamp", .date)
                .toMany("comments", destination: "Comment", inverse: "post", deleteRule: .cascade)
            }
            EntityDescription("Comment", class: Comment.self) {
                .attribute("text", .string)
                .toOne("post", destination: "Post", inverse: "comments")
            }
        }
        XCTAssertEqual(model.entities.map(\.name), ["Comment", "Post"])

        let container = PersistentContainer(name: "Blog", managedObjectModel: model)
        container.persistentStoreDescriptions = [PersistentStoreDescription(type: .inMemory)]
        try container.loadPersistentStores()
        let context = container.viewContext

        let post = try Post(context: context)
        post.title = "Misty Morning"
        post.timestamp = Date()

        let comment = try Comment(context: context)
        comment.text = "Lovely light"
        post.comments.insert(comment)        // comment.post is now post, too

        try context.save()

        var request = FetchRequest<Post>()
        request.sortDescriptors = [.descending("timestamp")]
        let posts = try context.fetch(request)
        print(posts.map(\.title))            // ["Misty Morning"]

        XCTAssertEqual(posts.map(\.title), ["Misty Morning"])
        XCTAssertTrue(comment.post === post, "the inverse was set")
        XCTAssertFalse(post.objectID.isTemporaryID, "saved objects have permanent IDs")

        let misty = FetchRequest<Post>(predicate: #Predicate { $0.title.starts(with: "Misty") })
        print(try context.count(for: misty))         // 1
        XCTAssertEqual(try context.count(for: misty), 1)

        let background = container.newBackgroundContext()
        try background.performAndWait {
            let draft = try Post(context: background)
            draft.title = "Harbour Lights"
            try background.save()
        }
        print(try context.count(for: FetchRequest<Post>()))   // 2: the store has both posts
        XCTAssertEqual(try context.count(for: FetchRequest<Post>()), 2)

        let onDisk = PersistentContainer(name: "Blog", managedObjectModel: model)
        onDisk.persistentStoreDescriptions = [PersistentStoreDescription(url: storeURL)]
        try onDisk.loadPersistentStores()

        XCTAssertEqual(onDisk.persistentStoreCoordinator.persistentStores.first?.type, .sqlite)
        try onDisk.viewContext.performAndWait {
            let saved = try Post(context: onDisk.viewContext)
            saved.title = "Kept on disk"
            try onDisk.viewContext.save()
        }
        ExampleStack.close(onDisk)
        XCTAssertTrue(FileManager.default.fileExists(atPath: storeURL.path))

        // Opened again, the file still holds the post.
        let reopened = PersistentContainer(name: "Blog", managedObjectModel: model)
        reopened.persistentStoreDescriptions = [PersistentStoreDescription(url: storeURL)]
        try reopened.loadPersistentStores()
        XCTAssertEqual(try reopened.viewContext.fetch(FetchRequest<Post>()).map(\.title), ["Kept on disk"])
        ExampleStack.close(reopened)
    }
}
