import Foundation
@testable import SQLiteBackend
import StoreCore
import StoreTestSupport
import XCTest

/// Only what is touched is loaded: faults fire lazily, prefetching costs one query per key
/// path, and batched fetches materialize one batch at a time.
final class SQLiteFaultingTests: XCTestCase {
    func testFaultsAndToManyRelationshipsLoadOnlyWhenTouched() throws {
        let stack = try SQLiteTestStore()
        try stack.savePosts(["a", "b"], comments: 3)
        let (container, store) = try stack.reopen()
        let context = container.newBackgroundContext()
        try context.performAndWait {
            var request = FetchRequest<Post>()
            request.includesPropertyValues = false
            let before = store.queryCount
            let posts = try context.fetch(request)
            XCTAssertEqual(store.queryCount - before, 1, "one query for the fetch")
            XCTAssertTrue(posts.allSatisfy(\.isFault))
            XCTAssertEqual(Set(posts.map(\.title)), ["a", "b"])
            XCTAssertEqual(store.queryCount - before, 3, "one query per fault fired")
            let comments = posts[0].comments
            XCTAssertEqual(store.queryCount - before, 4, "one query for the to-many relationship")
            XCTAssertTrue(comments.allSatisfy(\.isFault))
            XCTAssertEqual(comments.count, 3)
            _ = comments.map(\.text)
            XCTAssertEqual(store.queryCount - before, 7, "one query per comment fault")
        }
    }

    func testPrefetchingIssuesOneQueryPerKeyPath() throws {
        let stack = try SQLiteTestStore()
        try stack.savePosts(["a", "b", "c"], comments: 2)
        let (container, store) = try stack.reopen()
        let context = container.newBackgroundContext()
        try context.performAndWait {
            var request = FetchRequest<Comment>()
            request.relationshipKeyPathsForPrefetching = ["post", "post.comments"]
            let before = store.queryCount
            let comments = try context.fetch(request)
            XCTAssertEqual(comments.count, 6)
            XCTAssertEqual(store.queryCount - before, 3, "the fetch, then one query per key path step")
            let titles = Set(comments.compactMap { $0.post?.title })
            let siblings = comments.map { $0.post?.comments.count ?? 0 }
            XCTAssertEqual(titles, ["a", "b", "c"])
            XCTAssertEqual(siblings, Array(repeating: 2, count: 6))
            XCTAssertEqual(store.queryCount - before, 3, "touching prefetched objects runs no query")
        }
    }

    func testBatchedFetchMaterializesOnlyTheBatchTouched() throws {
        let stack = try SQLiteTestStore()
        try stack.savePosts((0..<50).map { String(format: "post %02d", $0) })
        let (container, store) = try stack.reopen()
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let request = postsByTitle(batchSize: 10)
            let before = store.queryCount
            let results = try context.fetchBatched(request)
            XCTAssertEqual(results.count, 50)
            XCTAssertEqual(store.queryCount - before, 1, "only IDs are fetched up front")
            XCTAssertEqual(context.registeredObjects.count, 0)
            XCTAssertEqual(results[23].title, "post 23")
            XCTAssertEqual(store.queryCount - before, 2, "one query loads the batch")
            XCTAssertEqual(context.registeredObjects.count, 10)
            XCTAssertFalse(results[29].isFault)
            XCTAssertEqual(store.queryCount - before, 2)
            let kept = results[31]
            XCTAssertEqual(results[45].title, "post 45")
            XCTAssertEqual(context.registeredObjects.count, 11, "the earlier batch is released, except the object still held")
            XCTAssertTrue(results[31] === kept, "uniquing holds for objects still referenced")
            var titles: [String] = []
            for post in results { titles.append(post.title) }
            XCTAssertEqual(titles, (0..<50).map { String(format: "post %02d", $0) })
        }
    }

    /// Read in order, a batched fetch reads the rows of the next batches with the current one:
    /// twice as many batches per query each time (across gaps in the keys, as here), one
    /// batch per query again with a staleness interval of zero, and the batch read again when
    /// anything was saved since its rows were read ahead.
    func testBatchedFetchReadInOrderReadsSeveralBatchesPerQuery() throws {
        let stack = try SQLiteTestStore()
        let ids = try stack.savePosts((0..<50).map { String(format: "post %02d", $0) })
        let (container, store) = try stack.reopen()
        let gone: Set<Int> = [7, 21]
        let writer = container.newBackgroundContext()
        try writer.performAndWait {
            for number in gone { writer.delete(try writer.existingObject(with: ids[number])) }
            try writer.save()
        }
        let expected = (0..<50).filter { !gone.contains($0) }.map { String(format: "post %02d", $0) }
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let request = postsByTitle(batchSize: 5)
            var before = store.queryCount
            XCTAssertEqual(try context.fetchBatched(request).map(\.title), expected)
            // The IDs, then batches 0, 1–2, 3–6 and 7–9 (48 posts): not one query per batch.
            XCTAssertEqual(store.queryCount - before, 5, "the IDs, then 1, 2, 4 and 3 batches per query")

            context.reset()   // the last batch's objects stay registered, and would need no query
            context.stalenessInterval = 0
            before = store.queryCount
            XCTAssertEqual(try context.fetchBatched(request).map(\.title), expected)
            XCTAssertEqual(store.queryCount - before, 11, "no staleness allowed: each batch read when it is reached")

            context.reset()
            context.stalenessInterval = -1
            let results = try context.fetchBatched(request)
            XCTAssertEqual(results[0].title, "post 00")
            XCTAssertEqual(results[5].title, "post 05")   // batches 1 and 2 read in one query
            try writer.performAndWait {
                try writer.existingObject(with: ids[12]).setValue("renamed", forKey: "title")
                try writer.save()
            }
            before = store.queryCount
            XCTAssertEqual(results[11].title, "renamed", "saved since it was read ahead: read again")
            XCTAssertEqual(store.queryCount - before, 1)
        }
    }

    /// A batch loaded again after the results moved on (its objects let go, its rows read ahead
    /// moved into them the first time) shows the right objects, read again at most once, and
    /// the rows read ahead for the batches after it are still used; a change saved elsewhere
    /// since shows.
    func testABatchLoadedAgainIsReadAgainAndTheRowsAheadAreKept() throws {
        let stack = try SQLiteTestStore()
        let titles = (0..<50).map { String(format: "post %02d", $0) }
        let ids = try stack.savePosts(titles)
        let (container, store) = try stack.reopen()
        let context = container.newBackgroundContext()
        let writer = container.newBackgroundContext()
        try context.performAndWait {
            let request = postsByTitle(batchSize: 5)
            let results = try context.fetchBatched(request)
            // Batch 0, then batches 1–2 in one query, then batches 3–6 in one query.
            XCTAssertEqual([0, 5, 10, 15, 20].map { results[$0].title }, ["post 00", "post 05", "post 10", "post 15", "post 20"])
            var before = store.queryCount
            XCTAssertEqual(results[17].title, "post 17", "batch 3 again")
            XCTAssertLessThanOrEqual(store.queryCount - before, 1)
            before = store.queryCount
            XCTAssertEqual(results[25].title, "post 25")
            XCTAssertEqual(store.queryCount - before, 0, "batch 5 was read ahead with batch 3, and is still used")
            XCTAssertEqual(results[16].title, "post 16", "batch 3 once more")
            XCTAssertEqual(results[8].title, "post 08", "batch 1 again")
            try writer.performAndWait {
                try writer.existingObject(with: ids[11]).setValue("renamed", forKey: "title")
                try writer.save()
            }
            XCTAssertEqual(results[11].title, "renamed", "batch 2 again, after a save elsewhere")
            XCTAssertEqual((0..<50).map { results[$0].title }, titles.enumerated().map { $0.offset == 11 ? "renamed" : $0.element })
        }
    }

    /// 8,000 posts in batches of 200, read in order: from the fifth query on, each reads ten
    /// batches, and the next such span is read on another thread before the caller reaches it.
    /// A post of the span under way renamed by another context shows its new title (the read
    /// is dropped), as does one of the span after, and results dropped while their reads are
    /// under way leave the pool's readers free for the fetches after.
    func testBatchesReadAheadOnAnotherThreadStayCurrentAndGiveTheirReadersBack() throws {
        let stack = try SQLiteTestStore()
        let count = 8_000
        let titles = (0..<count).map { String(format: "post %05d", $0) }
        let ids = try stack.savePosts(titles)
        let (container, store) = try stack.reopen()
        let context = container.newBackgroundContext()
        let writer = container.newBackgroundContext()
        try context.performAndWait {
            let request = postsByTitle(batchSize: 200)
            var before = store.queryCount
            let results = try context.fetchBatched(request)
            XCTAssertEqual(results[0..<5_000].map(\.title), Array(titles[0..<5_000]))
            // The IDs, then batches 0, 1–2, 3–6, 7–14 and 15–24; rows 5,000–6,999 are being read.
            let deadline = Date(timeIntervalSinceNow: 30)
            while store.queryCount - before < 7, Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
            XCTAssertEqual(store.queryCount - before, 7, "the next span is read before it is reached")
            XCTAssertEqual(results[5_000..<count].map(\.title), Array(titles[5_000..<count]))
            XCTAssertEqual(store.queryCount - before, 8, "and the last one with it")

            context.reset()
            let renamed = try context.fetchBatched(request)
            XCTAssertEqual(renamed[0..<5_000].map(\.title), Array(titles[0..<5_000]))   // rows 5,000–6,999 are being read
            try writer.performAndWait {
                try writer.existingObject(with: ids[5_100]).setValue("post 05100 renamed", forKey: "title")
                try writer.existingObject(with: ids[7_100]).setValue("post 07100 renamed", forKey: "title")
                try writer.save()
            }
            var expected = titles
            expected[5_100] = "post 05100 renamed"
            expected[7_100] = "post 07100 renamed"
            XCTAssertEqual(renamed[5_000..<count].map(\.title), Array(expected[5_000..<count]), "saved while the span was being read ahead: read again")

            for _ in 0..<6 {
                context.reset()
                let dropped = try context.fetchBatched(request)
                XCTAssertEqual(dropped[3_000].title, expected[3_000])   // starts reading rows 5,000–6,999
            }
            context.reset()
            before = store.queryCount
            XCTAssertEqual(try context.fetchBatched(request).map(\.title), expected, "the pool's readers are free again")
            XCTAssertGreaterThan(store.queryCount - before, 0)
        }
    }

    /// Every post by title, fetched `batchSize` at a time.
    private func postsByTitle(batchSize: Int) -> FetchRequest<Post> {
        var request = FetchRequest<Post>()
        request.sortDescriptors = [.ascending("title")]
        request.fetchBatchSize = batchSize
        return request
    }
}
