import Foundation
import MemoryBackend
import StoreCore
import StoreTestSupport
import XCTest

/// The shared query table, run through an in-memory store (SQLiteBackendTests runs the same
/// suite on SQLite).
final class MemoryQueryCaseTests: XCTestCase {
    func testSharedQueryTableGivesTheExpectedAnswersInMemory() throws {
        let store = try MemoryStore.open(PersistentStoreLoadRequest(description: PersistentStoreDescription(type: .inMemory), model: try QueryFixture.makeModel()))
        let matched = try QueryCaseSuite.run(on: store)
        XCTAssertGreaterThan(matched, 250)
    }
}
