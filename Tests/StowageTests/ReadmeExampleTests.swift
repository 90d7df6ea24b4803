import Foundation
import Stowage
import StowageTestKit
import XCTest

/// The README's "Use it" example, kept compiling and running.
final class ReadmeExampleTests: XCTestCase {
    final class Post: ManagedObject {
        @Attribute var title: String
        @Attribute var timestamp: Date?
        @Relationship var comments: Set<Comment>
    }
    final class Comment: ManagedObject {
        @Attribute var text: String
        @Relationship var post: Post?
    }

    /// The README's model.
    static func makeModel() throws -> ManagedObjectModel {
        try ManagedObjectModel {
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
    }

    func testReadmeExample() throws {
        let model = try Self.makeModel()

        let container = PersistentContainer(name: "Blog", managedObjectModel: model)
        container.persistentStoreDescriptions = [PersistentStoreDescription(type: .inMemory)]
        try container.loadPersistentStores()

        let lastWeek = Date().addingTimeInterval(-7 * 86_400)
        let context = container.viewContext
        try context.performAndWait {
            let post = try Post(context: context)
            post.title = "Misty Morning"
            post.timestamp = Date()
            for text in ["Lovely light", "Where is this?", "Wow"] {
                let comment = try Comment(context: context)
                comment.text = text
                post.comments.insert(comment)          // comment.post is now post
            }
            try context.save()

            let recent = FetchRequest<Post>(
                predicate: #Predicate { $0.title.contains("Misty") && $0.comments.count > 2 },
                sortBy: [SortDescriptor(\.timestamp, order: .reverse)]
            )
            XCTAssertEqual(try context.fetch(recent).map(\.title), ["Misty Morning"])

            var request = FetchRequest<Post>()
            request.predicate = try .format("title CONTAINS[c] %@ AND timestamp > %@", "morning", lastWeek)
            request.sortDescriptors = [.descending("timestamp")]
            XCTAssertEqual(try context.fetch(request).map(\.title), ["Misty Morning"])

            request.predicate = .key(\Post.comments).count > 2 && .key(\Post.title).beginsWith("Misty", caseInsensitive: true)
            XCTAssertEqual(try context.fetch(request).count, 1)

            struct TitleCount: Decodable { let title: String; let posts: Int }
            var perTitle = FetchRequest<FetchedDictionary>(entityName: "Post")
            perTitle.propertiesToFetch = ["title", .expression(.init(name: "posts", expression: .function("count:", [.keyPath("title")])))]
            perTitle.propertiesToGroupBy = ["title"]
            XCTAssertEqual(try context.fetch(perTitle), [["title": "Misty Morning", "posts": 1]])
            let counts = try context.fetch(perTitle, as: TitleCount.self)
            XCTAssertEqual(counts.map(\.title), ["Misty Morning"])
            XCTAssertEqual(counts.map(\.posts), [1])
        }
    }

    /// The README's "Watching data, consistent reads, undo" example.
    func testReadmeObservationExample() throws {
        let model = try Self.makeModel()
        let container = PersistentContainer(name: "Blog", managedObjectModel: model)
        container.persistentStoreDescriptions = [PersistentStoreDescription(type: .inMemory)]
        try container.loadPersistentStores()
        let context = container.newBackgroundContext()
        var request = FetchRequest<Post>()
        request.sortDescriptors = [.ascending("title")]

        final class PostList: FetchedResultsControllerDelegate {
            var inserted: [String] = []
            func controller(_ controller: FetchedResultsController<Post>, didChange object: Post, at indexPath: IndexPath?,
                            for type: FetchedResultsChangeType, newIndexPath: IndexPath?) {
                if type == .insert { inserted.append(object.title) }
            }
        }
        let postList = PostList()
        let counts = StowageTestKit.LiveResultsRecorder(context.changes(forCountOf: request))
        defer { counts.cancel() }
        XCTAssertEqual(try counts.next(), 0)
        let controller = try context.performAndWait {
            let controller = try FetchedResultsController(fetchRequest: request, managedObjectContext: context,
                                                          sectionNameKeyPath: nil, cacheName: nil)
            controller.delegate = postList
            try controller.performFetch()
            try context.setQueryGenerationFrom(.current)
            context.undoManager = UndoManager()

            let post = try Post(context: context)
            post.title = "Misty Morning"
            try context.save()
            XCTAssertEqual(postList.inserted, ["Misty Morning"])
            return controller
        }
        XCTAssertEqual(try counts.next(), 1, "the live query saw the save")
        context.performAndWait {
            context.undoManager?.undo()
            XCTAssertEqual(controller.fetchedObjects?.count, 0, "the undone insert leaves the results")
        }
    }
}
