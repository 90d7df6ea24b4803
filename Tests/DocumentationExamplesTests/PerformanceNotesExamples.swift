import Foundation
import Stowage
import XCTest

/// PerformanceNotes.md: a batch update, a chunked import, fetching only what is needed, and
/// member-wise relationship changes.
final class PerformanceNotesExamples: XCTestCase {
    func testBatchUpdateAndChunkedImport() throws {
        let container = try ExampleStack.seeded()

        let worker = container.newBackgroundContext()
        var reset = BatchUpdateRequest(entityName: "Post", predicate: "views > 0")
        reset.propertiesToUpdate = ["views": .constant(0)]
        reset.resultType = .count
        let updated = try worker.performAndWait { try worker.execute(reset).count ?? 0 }
        print(updated)                                // 3

        XCTAssertEqual(updated, 3)

        let importer = container.newBackgroundContext()
        try importer.performAndWait {
            for chunk in stride(from: 0, to: 2_000, by: 500) {
                for n in chunk..<chunk + 500 {
                    let post = try Post(context: importer)
                    post.title = "Post \(n)"
                }
                try importer.save()
                importer.reset()                      // let go of the saved objects
            }
        }

        let counts = try importer.performAndWait {
            try (importer.count(for: FetchRequest<Post>()), importer.registeredObjects.count)
        }
        XCTAssertEqual(counts.0, 2_003)
        XCTAssertEqual(counts.1, 0, "reset let go of every object")
    }

    func testFetchOnlyWhatYouNeed() throws {
        let container = try ExampleStack.seeded()
        let context = container.viewContext

        let howMany = try context.count(for: FetchRequest<Post>())                       // no objects made
        let ids = try context.fetch(FetchRequest<ManagedObjectID>(entityName: "Post"))  // keys only
        var everything = FetchRequest<Post>()
        everything.returnsObjectsAsFaults = false                        // one query brings the values
        everything.relationshipKeyPathsForPrefetching = ["comments"]     // and one more, the comments
        let loaded = try context.fetch(everything)
        print(howMany, ids.count, loaded.count)                          // 3 3 3

        XCTAssertEqual([howMany, ids.count, loaded.count], [3, 3, 3])
        XCTAssertTrue(loaded.allSatisfy { !$0.isFault })
        XCTAssertEqual(Set(ids), Set(loaded.map(\.objectID)))
    }

    func testMemberWiseRelationshipChanges() throws {
        let container = try ExampleStack.container()
        let context = container.viewContext

        let post = try Post(context: context)
        for n in 0..<100 {
            let comment = try Comment(context: context)
            comment.text = "Comment \(n)"
            post.$comments.insert(comment)            // constant time, however many comments
        }
        print(post.comments.count)                    // 100

        XCTAssertEqual(post.comments.count, 100)
        XCTAssertTrue(post.comments.allSatisfy { $0.post === post })
        try context.save()
    }
}
