import Foundation
import StoreCore
import StoreTestSupport
import XCTest

/// `migratePersistentStore` copies a store into any other type, keeping every value and
/// relationship.
final class StoreMigrationTests: XCTestCase {
    /// The chain the issue names: SQLite → XML → binary → in-memory → SQLite, plus a user format.
    private let chain: [StoreBackend] = StoreBackend.migrationChain

    func testEveryValueAndRelationshipSurvivesAChainOfStoreTypes() throws {
        let model = try EveryTypeGraph.makeModel()
        let directory = try TemporaryDirectory()
        let first = chain[0].description(named: "step0", in: directory)
        let container = PersistentContainer(name: "Chain", managedObjectModel: model)
        container.persistentStoreDescriptions = [first]
        try container.loadPersistentStores()
        let context = container.newBackgroundContext()
        let expected = try context.performAndWait {
            try EveryTypeGraph.insert(into: context)
            try context.save()
            context.reset()
            return try EveryTypeGraph.contents(of: context)
        }
        XCTAssertEqual(expected.count, EveryTypeGraph.attributes.count)
        for (name, values) in EveryTypeGraph.attributes {
            for (key, value) in values {
                XCTAssertEqual(expected[name]?[key], EveryTypeGraph.exactly(value), "\(name).\(key) in the first store")
            }
        }
        XCTAssertEqual(expected["unicode"]?["sequence"], "special,nulls,fractions,empty", "\(expected)")
        let coordinator = container.persistentStoreCoordinator
        for (step, backend) in chain.enumerated().dropFirst() {
            let store = try XCTUnwrap(coordinator.persistentStores.first)
            let oldIdentifier = store.identifier
            let reports = Counter()
            let next = backend.description(named: "step\(step)", in: directory)
            let migrated = try coordinator.migratePersistentStore(store, to: next.url, type: backend.type) { _ in reports.increment() }
            XCTAssertEqual(coordinator.persistentStores.map(\.identifier), [migrated.identifier], "\(backend)")
            XCTAssertNotEqual(migrated.identifier, oldIdentifier, "\(backend)")
            XCTAssertGreaterThan(reports.value, 0, "\(backend): progress was reported")
            let reader = container.newBackgroundContext()
            let contents = try reader.performAndWait { try EveryTypeGraph.contents(of: reader) }
            for (name, fields) in expected {
                XCTAssertEqual(contents[name], fields, "\(name) after migrating to \(backend)")
            }
            XCTAssertEqual(contents.count, expected.count, "\(backend)")
        }
    }

    func testAStoreIsNeverMigratedOverAnExistingFile() throws {
        let directory = try TemporaryDirectory()
        let container = try TestStack.sqliteContainer(at: directory.file("Blog.sqlite"))
        let target = directory.file("Existing.json")
        try Data("keep me".utf8).write(to: target)
        JSONStoreFormat.register()
        let coordinator = container.persistentStoreCoordinator
        let store = try XCTUnwrap(coordinator.persistentStores.first)
        XCTAssertThrowsError(try coordinator.migratePersistentStore(store, to: target, type: JSONStoreFormat.type)) { error in
            XCTAssertEqual((error as? StoreError)?.code, .alreadyExists)
        }
        XCTAssertEqual(try Data(contentsOf: target), Data("keep me".utf8))
        XCTAssertTrue(coordinator.persistentStores.first === store)
    }
}
