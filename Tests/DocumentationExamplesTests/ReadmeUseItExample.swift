import Foundation
import Stowage
import XCTest

/// README.md's "Use it" example, as written there: its classes nested here (the target's own
/// `Post` and `Comment` are the articles'), its statements in the test.
final class ReadmeUseItExample: XCTestCase {
    final class Post: ManagedObject {
        @Attribute var title: String
        @Attribute var timestamp: Date?
        @Relationship var comments: Set<Comment>
    }
    final class Comment: ManagedObject {
        @Attribute var text: String
        @Relationship var post: Post?
    }

    func testUseIt() throws {
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

        let container = PersistentContainer(name: "Blog", managedObjectModel: model)
        container.persistentStoreDescriptions = [PersistentStoreDescription(type: .inMemory)]
        try container.loadPersistentStores()

        let context = container.viewContext
        let post = try Post(context: context)
        post.title = "Misty Morning"
        let comment = try Comment(context: context)
        comment.text = "Lovely light"
        post.comments.insert(comment)          // comment.post is now post
        post.$comments.insert(comment)         // the same, member by member: O(1) however many comments
        try context.save()

        // Typed: Foundation's #Predicate and SortDescriptor, checked by the compiler and run by the store
        let recent = FetchRequest<Post>(
            predicate: #Predicate { $0.title.contains("Misty") && $0.comments.count > 2 },
            sortBy: [SortDescriptor(\.timestamp, order: .reverse)]
        )
        let posts = try context.fetch(recent)

        // Core Data's format strings, and a builder without strings:
        let lastWeek = Date().addingTimeInterval(-7 * 86_400)
        var request = FetchRequest<Post>()
        request.predicate = try .format("title CONTAINS[c] %@ AND timestamp > %@", "morning", lastWeek)
        request.sortDescriptors = [.descending("timestamp")]
        request.predicate = .key(\Post.comments).count > 2 && .key(\Post.title).beginsWith("Misty", caseInsensitive: true)

        // Dictionary results, grouped, decoded into your own Decodable type:
        struct TitleCount: Decodable { let title: String; let posts: Int }
        var perTitle = FetchRequest<FetchedDictionary>(entityName: "Post")
        perTitle.propertiesToFetch = ["title", .expression(.init(name: "posts", expression: .function("count:", [.keyPath("title")])))]
        perTitle.propertiesToGroupBy = ["title"]
        let counts = try context.fetch(perTitle, as: TitleCount.self)

        XCTAssertEqual(posts.count, 0, "one comment is not more than two")
        XCTAssertEqual(post.comments.count, 1)
        XCTAssertTrue(comment.post === post)
        XCTAssertEqual(counts.map(\.title), ["Misty Morning"])
        XCTAssertEqual(counts.first?.posts, 1)
        XCTAssertNotNil(request.predicate)
        XCTAssertEqual(recent.sortDescriptors.count, 1)
    }
}
