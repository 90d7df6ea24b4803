import Foundation
import SQLiteBackend
import StoreCore
import StoreTestSupport
import XCTest

/// The shared query table, run through a SQLite store (the in-memory store runs the same suite
/// in MemoryBackendTests).
final class SQLiteQueryCaseTests: XCTestCase {
    func testSharedQueryTableGivesTheSameAnswersOnSQLite() throws {
        let directory = try TemporaryDirectory()
        let description = PersistentStoreDescription(url: directory.file("Quakes.sqlite"))
        let store = try SQLiteStore(PersistentStoreLoadRequest(description: description, model: try QueryFixture.makeModel()))
        let matched = try QueryCaseSuite.run(on: store)
        XCTAssertGreaterThan(matched, 250)
    }
}
