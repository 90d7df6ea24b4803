import Foundation
import SQLiteBackend
import StoreCore
import StoreTestSupport
import StowageTestKit
import XCTest

/// The limits of SQLite's pinned query generations: how many at once, and for how long a
/// generation may hold its read transaction before it is released for WAL checkpoints.
final class SQLiteQueryGenerationTests: XCTestCase {
    private func stack(_ options: [PersistentStoreOption: StoreValue]) throws -> StoreTestStack {
        try StoreBackend.sqlite.kit.makeStack(model: BlogModel.make(), options: options)
    }

    func testPinningMoreGenerationsThanAllowedFailsAndChangesNothing() throws {
        let stack = try stack([.sqliteMaximumQueryGenerations: 2])
        let contexts = (0..<3).map { _ in stack.newContext() }
        try contexts[0].performAndWait { try contexts[0].setQueryGenerationFrom(.current) }
        try contexts[1].performAndWait { try contexts[1].setQueryGenerationFrom(.current) }
        try contexts[2].performAndWait {
            XCTAssertThrowsError(try contexts[2].setQueryGenerationFrom(.current)) { error in
                XCTAssertEqual((error as? StoreError)?.code, .queryGenerationUnavailable)
            }
            XCTAssertNil(contexts[2].queryGenerationToken, "a refused pin leaves the context unpinned")
            XCTAssertEqual(try contexts[2].count(for: FetchRequest<Post>()), 0, "and it reads as before")
        }
        try contexts[0].performAndWait { try contexts[0].setQueryGenerationFrom(.unpinned) }
        try contexts[2].performAndWait {
            XCTAssertNoThrow(try contexts[2].setQueryGenerationFrom(.current), "an unpinned generation frees its place")
        }
    }

    func testAGenerationPastItsLifetimeIsReleasedAndSaysSo() throws {
        let stack = try stack([.sqliteQueryGenerationLifetime: 0.2])
        let context = stack.newContext()
        try context.performAndWait { try context.setQueryGenerationFrom(.current) }
        Thread.sleep(forTimeInterval: 1)
        try context.performAndWait {
            XCTAssertThrowsError(try context.count(for: FetchRequest<Post>())) { error in
                XCTAssertEqual((error as? StoreError)?.code, .queryGenerationUnavailable)
            }
            try context.setQueryGenerationFrom(.current)
            XCTAssertEqual(try context.count(for: FetchRequest<Post>()), 0, "a new generation reads again")
        }
        var description = stack.storeDescription
        description.setOption(.integer(-1), forKey: .sqliteQueryGenerationLifetime)
        let container = PersistentContainer(name: "Bad", managedObjectModel: stack.model)
        container.persistentStoreDescriptions = [description]
        XCTAssertThrowsError(try container.loadPersistentStores()) { error in
            XCTAssertEqual((error as? StoreError)?.code, .invalidOption, "a negative lifetime is refused")
        }
    }
}
