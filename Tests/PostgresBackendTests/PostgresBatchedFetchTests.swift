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

    private static func savePosts(_ count: Int, in container: PersistentContainer) throws {
        let context = container.newBackgroundContext()
        try context.performAndWait {
            for number in 0..<count { try Post(context: context).title = String(format: "post %02d", number) }
            try context.save()
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
            XCTAssertEqual(results[0].title, "post 00")
            try PostgresTestCluster.sql("ALTER TABLE \(schema).zpost RENAME TO zpost_away")
            XCTAssertThrowsError(try results[5].value(forKey: "title")) { error in
                guard let error = error as? StoreError else { return XCTFail("not a StoreError: \(error)") }
                XCTAssertEqual(error.code, .io)
                XCTAssertEqual((error.underlyingError as? PostgresServerError)?.sqlState, "42P01", "the server's undefined-table error: \(error)")
            }
            try PostgresTestCluster.sql("ALTER TABLE \(schema).zpost_away RENAME TO zpost")
            XCTAssertEqual(try results[5].value(forKey: "title") as? String, "post 05", "read again once the table is back")
            XCTAssertEqual(results.map(\.title), (0..<30).map { String(format: "post %02d", $0) })
        }
    }
}
#endif
