import Foundation
import Stowage
import XCTest

/// docs/query-language.md's quakes: a place and a magnitude.
final class Quake: ManagedObject {
    @Attribute var place: String
    @Attribute var magnitude: Double
}

/// docs/query-language.md's blog: posts with views and an author (the articles' `Post` has
/// neither, so the page's classes live here, where its examples see them).
enum QueryLanguagePage {
    final class Post: ManagedObject {
        @Attribute var title: String
        @Attribute var timestamp: Date?
        @Attribute var views: Int64
        @Relationship var author: Author?
        @Relationship var comments: Set<Comment>
    }

    final class Author: ManagedObject {
        @Attribute var name: String
        @Relationship var posts: Set<Post>
    }

    final class Comment: ManagedObject {
        @Attribute var text: String
        @Relationship var post: Post?
    }

    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Post", class: Post.self) {
                .attribute("title", .string, optional: false, defaultValue: "")
                .attribute("timestamp", .date)
                .attribute("views", .integer64, optional: false, defaultValue: 0)
                .toOne("author", destination: "Author", inverse: "posts")
                .toMany("comments", destination: "Comment", inverse: "post")
            }
            EntityDescription("Author", class: Author.self) {
                .attribute("name", .string, optional: false, defaultValue: "")
                .toMany("posts", destination: "Post", inverse: "author")
            }
            EntityDescription("Comment", class: Comment.self) {
                .attribute("text", .string, optional: false, defaultValue: "")
                .toOne("post", destination: "Post", inverse: "comments")
            }
            EntityDescription("Quake", class: Quake.self) {
                .attribute("place", .string, optional: false, defaultValue: "")
                .attribute("magnitude", .double, optional: false, defaultValue: 0)
            }
        }
    }

    /// Ada's "Misty Morning" (120 views, a comment) and "Harbour Lights" (45), Bob's "Northern
    /// Sky" (300); quakes in California (3.1 and 2.0) and Chile (5.2).
    static func seed(_ context: ManagedObjectContext) throws {
        let ada = try Author(context: context)
        ada.name = "Ada"
        let bob = try Author(context: context)
        bob.name = "Bob"
        for (title, views, author, day) in [("Misty Morning", 120, ada, 1.0), ("Harbour Lights", 45, ada, 2.0), ("Northern Sky", 300, bob, 3.0)] {
            let post = try Post(context: context)
            post.title = title
            post.views = Int64(views)
            post.timestamp = Date(timeIntervalSinceReferenceDate: day * 86_400)
            post.author = author
            if title == "Misty Morning" {
                let comment = try Comment(context: context)
                comment.text = "Lovely light"
                comment.post = post
            }
        }
        for (place, magnitude) in [("California", 3.1), ("California", 2.0), ("Chile", 5.2)] {
            let quake = try Quake(context: context)
            quake.place = place
            quake.magnitude = magnitude
        }
        try context.save()
    }

    /// "Typed predicates and sorts", as the page has it; returns what it fetched and built.
    static func typedRequests(_ context: ManagedObjectContext) throws -> ([String], FetchRequest<Post>, FetchRequest<ManagedObjectID>) {
        let minimum: Int64 = 10
        var request = FetchRequest<Post>(
            predicate: #Predicate { $0.views >= minimum && $0.author?.name == "Ada" },
            sortBy: [SortDescriptor(\.title), SortDescriptor(\.views, order: .reverse)]
        )
        let posts = try context.fetch(request)

        // Any result type, with the entity named by its class:
        let ids = FetchRequest<ManagedObjectID>(entity: Post.self, predicate: #Predicate { $0.comments.isEmpty })

        // Or translate a part yourself — this throws at once instead of at fetch time:
        request.predicate = try StorePredicate(#Predicate<Post> { $0.title.contains("Misty") })
        request.sortDescriptors = [try StoreSortDescriptor(SortDescriptor(\Post.timestamp))]

        // The builder takes key paths too; follow relationships one property at a time:
        request.predicate = .key(\Post.views) > 10 || .key(\Post.author).key(\Author.name) == "Bob"
        return (posts.map(\.title), request, ids)
    }
}

/// docs/query-language.md: four ways to one predicate tree, typed requests, typed results.
final class DocsQueryLanguageExamples: XCTestCase {
    private func context() throws -> ManagedObjectContext {
        let container = try ExampleStack.container(model: try QueryLanguagePage.model())
        try QueryLanguagePage.seed(container.viewContext)
        return container.viewContext
    }

    func testFourWaysToOneTree() throws {
        let context = try context()

        // Typed: Foundation's #Predicate, checked by the compiler (see "Typed predicates and sorts")
        let t = FetchRequest<Quake>(predicate: #Predicate { $0.magnitude > 2.5 && $0.place.starts(with: "Cal") })
        // Core Data's format strings, a builder, a literal:
        let a = try StorePredicate(format: "magnitude > %@ AND place BEGINSWITH[c] %@", 2.5, "Cal")
        let b: StorePredicate = .key("magnitude") > 2.5 && .key("place").beginsWith("Cal", caseInsensitive: true)
        let c: StorePredicate = "magnitude > 2.5 AND place BEGINSWITH[c] 'Cal'"   // literal: a bad one throws at fetch time
        // a == b == c, and String(describing: a) parses back to a.

        XCTAssertEqual(a, b)
        XCTAssertEqual(b, c)
        XCTAssertEqual(try StorePredicate(format: String(describing: a)), a)
        XCTAssertEqual(try context.fetch(t).map(\.magnitude), [3.1])
        for predicate in [a, b, c] {
            XCTAssertEqual(try context.fetch(FetchRequest<Quake>(entityName: "Quake", predicate: predicate)).map(\.magnitude), [3.1])
        }
    }

    func testTypedRequests() throws {
        let context = try context()
        let (titles, request, ids) = try QueryLanguagePage.typedRequests(context)
        XCTAssertEqual(titles, ["Harbour Lights", "Misty Morning"])
        XCTAssertEqual(try context.fetch(ids).count, 2, "the posts without comments")
        XCTAssertEqual(try context.fetch(request).map(\.title), ["Misty Morning", "Harbour Lights", "Northern Sky"],
                       "views > 10 or by Bob, by timestamp")
    }

    func testTypedResults() throws {
        let context = try context()

        struct Busiest: Decodable, Sendable { let place: String; let quakes: Int }
        var request = FetchRequest<FetchedDictionary>(entityName: "Quake")
        request.propertiesToFetch = ["place", .expression(.init(name: "quakes", expression: .function("count:", [.keyPath("place")])))]
        request.propertiesToGroupBy = ["place"]
        let busiest = try context.fetch(request, as: Busiest.self)

        XCTAssertEqual(busiest.map(\.place).sorted(), ["California", "Chile"])
        XCTAssertEqual(busiest.first { $0.place == "California" }?.quakes, 2)
    }
}
