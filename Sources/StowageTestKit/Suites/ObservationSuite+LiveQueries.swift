import Foundation
import StoreCore
import XCTest

extension ObservationSuite {
    /// A live query yields the current results, then one fresh result per save that changes
    /// them — from its own context, another context and a batch request — and none for saves
    /// that do not.
    func testLiveQueryYieldsOneResultPerRelevantSave() {
        run { backend in
            let stack = try backend.makeStack(model: BlogModel.make())
            let context = stack.newContext()
            let other = stack.newContext()
            var popular = FetchRequest<ManagedObjectID>(entityName: "Post")
            popular.predicate = try StorePredicate(format: "views >= 10")
            popular.sortDescriptors = [.ascending("title")]
            var titles = FetchRequest<FetchedDictionary>(entityName: "Post")
            titles.predicate = popular.predicate
            titles.sortDescriptors = popular.sortDescriptors
            titles.propertiesToFetch = ["title", "views"]
            let ids = LiveResultsRecorder(context.changes(for: popular))
            let rows = LiveResultsRecorder(context.changes(for: titles))
            let counts = LiveResultsRecorder(context.changes(forCountOf: popular))
            func titlesNow() throws -> [String] {
                try rows.next().map { row -> String in
                    guard case .string(let title)? = row["title"] else { return "?" }
                    return title
                }
            }
            defer { ids.cancel(); rows.cancel(); counts.cancel() }

            XCTAssertEqual(try ids.next(), [], "\(backend): the first result is the current one")
            XCTAssertEqual(try titlesNow(), [], "\(backend)")
            XCTAssertEqual(try counts.next(), 0, "\(backend)")

            func save(in context: ManagedObjectContext, _ body: @escaping @Sendable () throws -> Void) throws {
                try context.performAndWait {
                    try body()
                    try context.save()
                }
            }
            // Relevant: a popular post, saved by the query's own context.
            try save(in: context) {
                let post = try Post(context: context)
                post.title = "b"
                post.views = 12
            }
            XCTAssertEqual(try titlesNow(), ["b"], "\(backend): the context's own save")
            XCTAssertEqual(try counts.next(), 1, "\(backend)")
            XCTAssertEqual(try ids.next().count, 1, "\(backend)")
            // Irrelevant: a post that does not match, and a tag.
            try save(in: other) {
                let quiet = try Post(context: other)
                quiet.title = "quiet"
                quiet.views = 1
                let tag = try Tag(context: other)
                tag.name = "unrelated"
            }
            // Relevant, from another context: the quiet post becomes popular.
            try save(in: other) {
                var find = FetchRequest<Post>()
                find.predicate = try StorePredicate(format: "title == 'quiet'")
                try other.fetch(find).first?.views = 50
            }
            XCTAssertEqual(try titlesNow(), ["b", "quiet"], "\(backend): another context's save (and nothing for the irrelevant one)")
            XCTAssertEqual(try counts.next(), 2, "\(backend)")
            XCTAssertEqual(try ids.next().count, 2, "\(backend)")
            // Relevant, by a batch request: every view count drops to 0.
            try other.performAndWait {
                var update = BatchUpdateRequest(entityName: "Post")
                update.propertiesToUpdate = ["views": .constant(.integer(0))]
                _ = try other.execute(update)
            }
            XCTAssertEqual(try titlesNow(), [], "\(backend): a batch update")
            XCTAssertEqual(try counts.next(), 0, "\(backend)")
            XCTAssertEqual(try ids.next(), [], "\(backend)")
            XCTAssertEqual(rows.all.count, 4, "\(backend): one result per relevant save, none for the irrelevant one")
            XCTAssertEqual(counts.all, [0, 1, 2, 0], "\(backend)")
        }
    }
}
