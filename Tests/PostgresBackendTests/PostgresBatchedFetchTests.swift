#if Postgres  // the PostgreSQL store is built only with the Postgres package trait (Package.swift)
import Foundation
import PostgresBackend
import StoreCore
import StoreTestSupport
import XCTest

/// Batched fetches on PostgreSQL, where each query is a round trip: rows of several batches
/// come in one query when the results are read in order, and a server error while iterating
/// reaches the caller as a typed error (the shared suite checks the rest, on every store).
final class PostgresBatchedFetchTests: XCTestCase {
    private static func container(schema: String) throws -> PersistentContainer {
        PostgresStore.register()
        let container = PersistentContainer(name: "Blog", managedObjectModel: try BlogModel.make())
        container.persistentStoreDescriptions = [try PostgresTestServer.description(schema: schema)]
        try container.loadPersistentStores()
        return container
    }

    /// Post titles that sort as their numbers do.
    private static func title(_ number: Int) -> String { String(format: "post %05d", number) }

    private static func savePosts(_ count: Int, in container: PersistentContainer) throws {
        let context = container.newBackgroundContext()
        try context.performAndWait {
            for number in 0..<count { try Post(context: context).title = title(number) }
            try context.save()
        }
    }

    /// 8,000 posts in batches of 200: from the fifth request on, each reads ten batches and the
    /// next ten are read while the caller works on them (``PostgresStore/startReadingSnapshots(for:)``).
    /// Every post comes in order; a post renamed by another context while its batch was being
    /// read ahead shows its new title, as does one of the span after; results dropped while a
    /// read is under way give its connection back (more such results than the pool has
    /// connections, then a plain fetch).
    func testBatchesReadWhileTheCallerWorksStayCurrentAndGiveTheirConnectionsBack() throws {
        _ = try PostgresTestServer.requireURL()
        let schema = PostgresTestServer.freshSchema("pipelined")
        let container = try Self.container(schema: schema)
        let count = 8_000
        try Self.savePosts(count, in: container)
        let titles = (0..<count).map(Self.title)
        let context = container.newBackgroundContext()
        let writer = container.newBackgroundContext()
        try context.performAndWait {
            var request = FetchRequest<Post>()
            request.sortDescriptors = [.ascending("title")]
            request.fetchBatchSize = 200
            XCTAssertEqual(try context.fetchBatched(request).map(\.title), titles)

            context.reset()
            let results = try context.fetchBatched(request)
            XCTAssertEqual(results[0..<5_000].map(\.title), Array(titles[0..<5_000]))   // rows 5,000–6,999 are being read
            try writer.performAndWait {
                try writer.existingObject(with: results.objectIDs[5_100]).setValue("renamed", forKey: "title")
                try writer.existingObject(with: results.objectIDs[7_100]).setValue("renamed too", forKey: "title")
                try writer.save()
            }
            XCTAssertEqual(results[5_100].title, "renamed", "saved while the batch was being read ahead: read again")
            XCTAssertEqual(results[5_101..<7_100].map(\.title), Array(titles[5_101..<7_100]))
            XCTAssertEqual(results[7_100].title, "renamed too", "saved before the span after was read ahead")
            XCTAssertEqual(results[7_101..<count].map(\.title), Array(titles[7_101..<count]))

            for _ in 0..<6 {
                context.reset()
                let dropped = try context.fetchBatched(request)
                XCTAssertEqual(dropped[3_000].title, titles[3_000])   // starts reading rows 5,000–6,999
            }
            context.reset()
            XCTAssertEqual(try context.count(for: request), count, "the pool still has connections")
        }
    }

    /// An unsorted batched fetch reads its IDs in key order, 65,536 packed into each
    /// statement's one value (``SQLStore`` `objectIDListInKeyOrder`): 70,000 posts (all but 100
    /// inserted by SQL), the first 100 renamed afterwards — PostgreSQL writes a row's new
    /// version at the end of the table, so the table's own order is no longer the keys' — and
    /// every tenth after key 66,000 deleted (the first statement's keys are one range, the
    /// second's are packed). The results hold every post left, counted, in the order they were
    /// made, across both statements and every batch, and give any position.
    func testAnUnsortedBatchedFetchGivesEveryPostInTheOrderTheyWereMade() throws {
        try PostgresTestServer.requireCluster()
        let schema = PostgresTestServer.freshSchema("keyorder")
        let container = try Self.container(schema: schema)
        try Self.savePosts(100, in: container)
        let count = 70_000
        try PostgresTestCluster.sql("""
            INSERT INTO \(schema).zpost (z_pk, z_ent, z_opt, ztitle, zviews) \
            SELECT g, (SELECT z_ent FROM \(schema).zpost LIMIT 1), 1, 'post ' || lpad((g - 1)::text, 5, '0'), 0 \
            FROM generate_series(101, \(count)) AS g
            """)
        try PostgresTestCluster.sql("UPDATE \(schema).zpost SET ztitle = 'renamed ' || ztitle, z_opt = z_opt + 1 WHERE z_pk <= 100")
        try PostgresTestCluster.sql("DELETE FROM \(schema).zpost WHERE z_pk > 66000 AND z_pk % 10 = 0")
        let expected = (1...count).compactMap { key -> String? in
            if key > 66_000, key % 10 == 0 { return nil }
            return (key <= 100 ? "renamed " : "") + Self.title(key - 1)
        }
        let context = container.newBackgroundContext()
        try context.performAndWait {
            var request = FetchRequest<Post>()
            request.fetchBatchSize = 500
            let results = try context.fetchBatched(request)
            XCTAssertEqual(results.count, expected.count)
            XCTAssertEqual(results[66_000].title, expected[66_000], "a position the second statement read, first")
            let titles = results.map(\.title)
            let firstDifference = (0..<min(titles.count, expected.count)).first { titles[$0] != expected[$0] }
            XCTAssertNil(firstDifference, "first out of place: \(firstDifference.map { "\(titles[$0]) at \($0), not \(expected[$0])" } ?? "")")
            XCTAssertEqual(titles.count, expected.count)
        }
    }

    /// The table the next batches are read from is renamed away between two batches: reading an
    /// object of the next batch throws the store's error (naming the server's), and once the
    /// table is back the same results go on.
    func testAServerErrorWhileIteratingIsReportedAsAStoreError() throws {
        try PostgresTestServer.requireCluster()
        let schema = PostgresTestServer.freshSchema("batched")
        let container = try Self.container(schema: schema)
        try Self.savePosts(30, in: container)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            var request = FetchRequest<Post>()
            request.sortDescriptors = [.ascending("title")]
            request.fetchBatchSize = 5
            let results = try context.fetchBatched(request)
            XCTAssertEqual(results[0].title, Self.title(0))
            try PostgresTestCluster.sql("ALTER TABLE \(schema).zpost RENAME TO zpost_away")
            XCTAssertThrowsError(try results[5].value(forKey: "title")) { error in
                guard let error = error as? StoreError else { return XCTFail("not a StoreError: \(error)") }
                XCTAssertEqual(error.code, .io)
                XCTAssertEqual((error.underlyingError as? PostgresServerError)?.sqlState, "42P01", "the server's undefined-table error: \(error)")
            }
            try PostgresTestCluster.sql("ALTER TABLE \(schema).zpost_away RENAME TO zpost")
            XCTAssertEqual(try results[5].value(forKey: "title") as? String, Self.title(5), "read again once the table is back")
            XCTAssertEqual(results.map(\.title), (0..<30).map(Self.title))
        }
    }
}
#endif
