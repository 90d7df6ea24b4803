import Foundation
import Stowage
import XCTest

/// FetchingAndPredicates.md: format strings, argument arrays, syntax errors, `#Predicate`,
/// sub-entities, counts and pages, batched fetches, dictionary results.
final class FetchingAndPredicatesExamples: XCTestCase {
    private var container: PersistentContainer!

    override func setUpWithError() throws {
        container = try ExampleStack.seeded()
    }

    func testFormatStrings() throws {
        let context = container.viewContext

        var request = FetchRequest<Post>()                      // the entity named after the class
        request.predicate = try StorePredicate(format: "views >= %@ AND title BEGINSWITH[c] %@", 100, "misty")
        request.sortDescriptors = [.descending("views"), .ascending("title")]
        request.fetchLimit = 10
        let popular = try context.fetch(request)
        print(popular.map(\.title))                             // ["Misty Morning"]

        XCTAssertEqual(popular.map(\.title), ["Misty Morning"])

        let titles = ["Misty Morning", "Northern Sky"]
        let chosen = try StorePredicate(format: "title IN %@ AND author.name == %@", argumentArray: [titles, "Ada"])
        let byAda = FetchRequest<Post>(entityName: "Post", predicate: chosen, sortDescriptors: [.ascending("title")])
        print(try context.fetch(byAda).map(\.title))            // ["Misty Morning"]

        XCTAssertEqual(try context.fetch(byAda).map(\.title), ["Misty Morning"])

        // The builder, as the article describes it.
        var built = FetchRequest<Post>()
        built.predicate = .key(\Post.title).beginsWith("Misty", caseInsensitive: true) && .key("views") > 100
        XCTAssertEqual(try context.fetch(built).map(\.title), ["Misty Morning"])

        // A literal predicate.
        built.predicate = "views > 100"
        XCTAssertEqual(try context.count(for: built), 2)
    }

    func testSyntaxErrors() throws {
        _ = printed.take()
        do {
            _ = try StorePredicate(format: "title == 'Misty")
        } catch {
            print(error.code, error.offset)      // invalidString 9: the quote that is never closed
        }

        XCTAssertEqual(printed.take(), ["invalidString 9"])

        // A bad literal fails the fetch that uses it.
        var request = FetchRequest<Post>()
        request.predicate = "title == "
        XCTAssertThrowsError(try container.viewContext.fetch(request)) { error in
            XCTAssertEqual((error as? FetchError)?.code, .invalidPredicate, "\(error)")
        }
    }

    func testTypedPredicates() throws {
        let context = container.viewContext

        let word = "Light"
        let typed = FetchRequest<Post>(
            predicate: #Predicate { $0.title.contains(word) && $0.comments.count > 0 },
            sortBy: [SortDescriptor(\.timestamp, order: .reverse)]
        )
        print(try context.fetch(typed).map(\.title))            // ["Harbour Lights"]

        XCTAssertEqual(try context.fetch(typed).map(\.title), ["Harbour Lights"])

        let newestFirst = FetchRequest<Post>(predicate: nil, sortBy: [SortDescriptor(\.timestamp, order: .reverse)])
        XCTAssertEqual(try context.fetch(newestFirst).map(\.title), ["Misty Morning", "Harbour Lights", "Northern Sky"])
    }

    func testSubentities() throws {
        let context = container.viewContext

        var attachments = FetchRequest<ManagedObject>(entityName: "Attachment")
        print(try context.count(for: attachments))               // 2: a photo and a link
        attachments.includesSubentities = false
        print(try context.count(for: attachments))               // 0

        XCTAssertEqual(try context.count(for: attachments), 0)
        attachments.includesSubentities = true
        XCTAssertEqual(try context.count(for: attachments), 2)
        XCTAssertEqual(Set(try context.fetch(attachments).map(\.entity.name)), ["Photo", "Link"])
    }

    func testCountingAndPaging() throws {
        let context = container.viewContext

        let total = try context.count(for: FetchRequest<Post>())  // 3
        var page = FetchRequest<Post>()
        page.sortDescriptors = [.ascending("title")]
        page.fetchOffset = 1
        page.fetchLimit = 2
        print(total, try context.fetch(page).map(\.title))       // 3 ["Misty Morning", "Northern Sky"]

        XCTAssertEqual(total, 3)
        XCTAssertEqual(try context.fetch(page).map(\.title), ["Misty Morning", "Northern Sky"])
        XCTAssertEqual(try context.count(for: page), 2, "limit and offset apply to counts")
    }

    func testBatchedFetch() throws {
        let context = container.viewContext

        var all = FetchRequest<Post>()
        all.sortDescriptors = [.ascending("title")]
        all.fetchBatchSize = 100                    // loaded 100 at a time
        var totalViews: Int64 = 0
        for post in try context.fetchBatched(all) {
            totalViews += try post.value(forKey: "views") as? Int64 ?? 0
        }
        print(totalViews)                           // 465

        XCTAssertEqual(totalViews, 465)
        XCTAssertEqual(try context.fetchBatched(all).map(\.title), ["Harbour Lights", "Misty Morning", "Northern Sky"])
        XCTAssertEqual(try context.fetch(all).count, 3)
    }

    func testAsynchronousFetch() throws {
        let context = container.newBackgroundContext()
        _ = printed.take()

        var newestFirst = FetchRequest<Post>()
        newestFirst.sortDescriptors = [.descending("timestamp")]
        var inBackground = AsynchronousFetchRequest(fetchRequest: newestFirst) { result in
            if let posts = result.finalResult { print(posts.count, "posts") }          // 3 posts
            else if let error = result.operationError { print("stopped:", error) }
        }
        inBackground.batchSize = 100                      // progress moves every 100 objects
        let running = context.execute(inBackground)       // returns at once; the fetch runs on the context's queue
        let progress: Progress = running.progress         // Foundation's Progress: observe it, or cancel() it

        context.performAndWait {}                         // the queue is serial: the fetch has finished
        XCTAssertEqual(printed.take(), ["3 posts"])
        XCTAssertEqual(progress.totalUnitCount, 3)
        XCTAssertEqual(progress.completedUnitCount, 3)
        let titles = context.performAndWait { running.finalResult?.map(\.title) }
        XCTAssertEqual(titles, ["Misty Morning", "Harbour Lights", "Northern Sky"])
    }

    func testDictionaryResults() throws {
        let context = container.viewContext
        _ = printed.take()

        var perAuthor = FetchRequest<FetchedDictionary>(entityName: "Post")
        perAuthor.propertiesToFetch = [
            "author.name",
            .expression(ExpressionDescription(name: "posts", expression: .function("count:", [.keyPath("title")]), resultType: .integer64)),
            .expression(ExpressionDescription(name: "averageViews", expression: .function("average:", [.keyPath("views")]), resultType: .double)),
        ]
        perAuthor.propertiesToGroupBy = ["author.name"]
        for row in try context.fetch(perAuthor) {
            let name = row.value("author.name", as: String.self) ?? "nobody"
            let posts = row["posts"]?.numericValue ?? 0                  // a StoreValue as a Double
            let average = row.value("averageViews", as: Double.self) ?? 0
            print(name, posts, average)                                  // Ada 2.0 82.5 and Grace 1.0 300.0
        }

        XCTAssertEqual(Set(printed.take()), ["Ada 2.0 82.5", "Grace 1.0 300.0"])
        let rows = try context.fetch(perAuthor)
        XCTAssertEqual(rows.count, 2)
        XCTAssertEqual(Set(rows.compactMap { $0["posts"] }), [.integer(2), .integer(1)])

        struct AuthorStats: Decodable, Sendable {
            let posts: Int
            let averageViews: Double
        }
        let stats = try context.fetch(perAuthor, as: AuthorStats.self)
        print(stats.map(\.posts).sorted())                               // [1, 2]

        XCTAssertEqual(stats.map(\.posts).sorted(), [1, 2])
        XCTAssertEqual(stats.map(\.averageViews).sorted(), [82.5, 300])
    }
}
