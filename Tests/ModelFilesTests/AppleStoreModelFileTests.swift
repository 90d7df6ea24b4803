import Foundation
import ModelFiles
@testable import SQLiteBackend
import StoreCore
import StoreTestSupport
import XCTest

/// Every SQLite store Apple's Core Data wrote in the fixtures whose model is there too opens
/// read-only with the model version that wrote it — found by Core Data's version hashes — and
/// every row of every entity reads back, with every relationship followed; and a store Stowage
/// creates with that model has the same tables, columns and indexes.
final class AppleStoreModelFileTests: XCTestCase {
    private struct Case {
        let store: String
        let package: String
        let version: String
    }

    private static let cases = [
        Case(store: "bignerdranch__CoreDataStack/TestModel.sqlite", package: "bignerdranch__CoreDataStack/Sample.xcdatamodeld", version: "TestModel"),
        Case(store: "duckduckgo__BrowserServicesKit/Bookmarks_V1.sqlite", package: "duckduckgo__BrowserServicesKit/BookmarksModel.xcdatamodeld", version: "BookmarksModel"),
        Case(store: "duckduckgo__BrowserServicesKit/Bookmarks_V2.sqlite", package: "duckduckgo__BrowserServicesKit/BookmarksModel.xcdatamodeld", version: "BookmarksModel 2"),
        Case(store: "duckduckgo__BrowserServicesKit/Bookmarks_V3.sqlite", package: "duckduckgo__BrowserServicesKit/BookmarksModel.xcdatamodeld", version: "BookmarksModel 3"),
        Case(store: "duckduckgo__BrowserServicesKit/Bookmarks_V4.sqlite", package: "duckduckgo__BrowserServicesKit/BookmarksModel.xcdatamodeld", version: "BookmarksModel 4"),
        Case(store: "duckduckgo__BrowserServicesKit/Bookmarks_V5.sqlite", package: "duckduckgo__BrowserServicesKit/BookmarksModel.xcdatamodeld", version: "BookmarksModel 5"),
        Case(store: "duckduckgo__BrowserServicesKit/SyncMetadata_V3.sqlite", package: "duckduckgo__BrowserServicesKit/SyncMetadata.xcdatamodeld", version: "SyncMetadata 3"),
    ]

    /// The store's copy to open, a second copy to count on, and the package.
    private func copies(of testCase: Case, in directory: TemporaryDirectory) throws -> (store: URL, raw: URL, bundle: ManagedObjectModelBundle) {
        let rawDirectory = directory.url.appendingPathComponent("raw", isDirectory: true)
        try FileManager.default.createDirectory(at: rawDirectory, withIntermediateDirectories: true)
        guard let store = try CoreDataFixtures.copyOfStore(testCase.store, into: directory.url),
            let raw = try CoreDataFixtures.copyOfStore(testCase.store, into: rawDirectory),
            let package = CoreDataFixtures.model(testCase.package)
        else { throw XCTSkip("the Core Data fixtures are not present beside the repository") }
        return (store, raw, try ManagedObjectModelBundle(contentsOf: package))
    }

    private func metadata(of url: URL) throws -> StoreMetadata {
        let connection = try SQLiteConnection(path: url.path, mode: .readOnly, log: .disabled)
        return try SQLiteStoreOpener.readMetadata(on: connection, url: url)
    }

    func testEveryFixtureStoreOpensWithTheVersionThatWroteItAndEveryRowReads() throws {
        var objectsRead = 0
        for testCase in Self.cases {
            let directory = try TemporaryDirectory()
            let (url, raw, bundle) = try copies(of: testCase, in: directory)
            let version = try XCTUnwrap(bundle.version(compatibleWithStoreMetadata: try metadata(of: raw)), testCase.store)
            XCTAssertEqual(version.name, testCase.version, "the version is recognised by Core Data's hashes")

            var expected: [String: Int] = [:]
            let connection = try SQLiteConnection(path: raw.path, mode: .readOnly, log: .disabled)
            for entity in version.model.entities {
                let number = try XCTUnwrap(connection.scalar("SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = ?", [.text(entity.name)]))
                let count = try connection.scalar("SELECT COUNT(*) FROM Z\(entity.rootEntity.name.uppercased()) WHERE Z_ENT = ?", [number])
                guard case .integer(let rows)? = count else { return XCTFail("no count for \(entity.name)") }
                expected[entity.name] = Int(rows)
            }

            let container = try TestStack.sqliteContainer(version.model, at: url) { $0.isReadOnly = true }
            let context = container.newBackgroundContext()
            try context.performAndWait {
                for entity in version.model.entities {
                    var request = FetchRequest<ManagedObject>(entityName: entity.name)
                    request.storeRequest.includesSubentities = false
                    let objects = try context.fetch(request)
                    XCTAssertEqual(objects.count, expected[entity.name], "\(testCase.store): \(entity.name) objects")
                    for object in objects { try Self.readEverything(of: object, in: testCase.store) }
                    objectsRead += objects.count
                }
            }
            try container.persistentStoreCoordinator.persistentStores.forEach { try container.persistentStoreCoordinator.removePersistentStore($0) }
        }
        XCTAssertGreaterThan(objectsRead, 40, "the DuckDuckGo stores hold rows (most in their -wal files)")
    }

    /// Reads every property; a relationship's destinations are of its destination entity and,
    /// where there is an inverse, point back.
    private static func readEverything(of object: ManagedObject, in store: String) throws {
        for property in object.entity.properties {
            let value = try object.value(forKey: property.name)
            guard let relationship = property as? RelationshipDescription, let destination = relationship.destinationEntity else { continue }
            let members: [ManagedObject]
            if relationship.isToMany {
                members = relationship.isOrdered ? (value as? [ManagedObject] ?? []) : Array(value as? Set<ManagedObject> ?? [])
                XCTAssertTrue(value is [ManagedObject] || value is Set<ManagedObject>, "\(store): \(relationship.name) is a collection")
            } else {
                members = (value as? ManagedObject).map { [$0] } ?? []
            }
            for member in members {
                XCTAssertTrue(member.entity.isKind(of: destination), "\(store): \(relationship.name) → \(member.entity.name)")
                guard let inverse = relationship.inverseRelationship else { continue }
                let back = try member.value(forKey: inverse.name)
                if inverse.isToMany {
                    let backMembers = (back as? [ManagedObject]) ?? Array(back as? Set<ManagedObject> ?? [])
                    XCTAssertTrue(backMembers.contains { $0 === object }, "\(store): \(inverse.name) of a member of \(relationship.name) holds the object")
                } else {
                    XCTAssertTrue(back as? ManagedObject === object, "\(store): \(inverse.name) of \(relationship.name)'s destination points back")
                }
            }
        }
    }

    func testBookmarksV5ReadsItsOrderedRelationshipsInOrder() throws {
        let directory = try TemporaryDirectory()
        let (url, _, bundle) = try copies(of: Self.cases[5], in: directory)
        let model = try XCTUnwrap(bundle.version(named: "BookmarksModel 5")).model
        let container = try TestStack.sqliteContainer(model, at: url) { $0.isReadOnly = true }
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let all = try context.fetch(FetchRequest<ManagedObject>(entityName: "BookmarkEntity"))
            let byTitle = Dictionary(all.compactMap { object in (try? object.value(forKey: "title") as? String).map { ($0, object) } }, uniquingKeysWith: { first, _ in first })
            func titles(_ value: Any?) -> [String] { (value as? [ManagedObject] ?? []).compactMap { try? $0.value(forKey: "title") as? String } }
            let root = try XCTUnwrap(byTitle["bookmarks_root"])
            XCTAssertFalse(titles(try root.value(forKey: "children")).isEmpty)
            let favorites = try XCTUnwrap(byTitle["favorites_root"])
            XCTAssertFalse(titles(try favorites.value(forKey: "favorites")).isEmpty, "the ordered many-to-many reads")
        }
    }

    /// A store Stowage creates with the model that wrote an Apple store has the Apple store's
    /// tables, columns (name and declared type) and indexes (name, uniqueness, columns), its
    /// `Z_MODELCACHE` included.
    func testStoreCreatedWithAFixtureModelHasTheAppleStoresSchema() throws {
        for testCase in Self.cases {
            let directory = try TemporaryDirectory()
            let (_, raw, bundle) = try copies(of: testCase, in: directory)
            let model = try XCTUnwrap(bundle.version(named: testCase.version)).model
            let ours = directory.file("ours.sqlite")
            let container = try TestStack.sqliteContainer(model, at: ours)
            try container.persistentStoreCoordinator.persistentStores.forEach { try container.persistentStoreCoordinator.removePersistentStore($0) }
            let apple = try Self.schema(of: raw)
            let stowage = try Self.schema(of: ours)
            XCTAssertEqual(stowage.tables, apple.tables, "\(testCase.store): tables and columns")
            XCTAssertEqual(stowage.indexes, apple.indexes, "\(testCase.store): indexes")
            XCTAssertFalse(apple.indexes.isEmpty, "\(testCase.store) has indexes to compare")
        }
    }

    /// An Apple store saved with an older version, migrated on load to the package's current
    /// version, has the schema of a store Stowage creates with that version, `Z_MODELCACHE`
    /// included.
    func testAMigratedFixtureStoreHasTheSchemaOfANewStore() throws {
        var migrated = 0
        for testCase in Self.cases {
            let directory = try TemporaryDirectory()
            let (url, _, bundle) = try copies(of: testCase, in: directory)
            guard bundle.currentVersionName != testCase.version else { continue }
            let container = try TestStack.sqliteContainer(bundle.currentModel, at: url)
            try container.persistentStoreCoordinator.persistentStores.forEach { try container.persistentStoreCoordinator.removePersistentStore($0) }
            let fresh = directory.file("fresh.sqlite")
            let created = try TestStack.sqliteContainer(bundle.currentModel, at: fresh)
            try created.persistentStoreCoordinator.persistentStores.forEach { try created.persistentStoreCoordinator.removePersistentStore($0) }
            let ours = try Self.schema(of: url), expected = try Self.schema(of: fresh)
            XCTAssertEqual(ours.tables, expected.tables, "\(testCase.store): tables and columns")
            XCTAssertEqual(ours.indexes, expected.indexes, "\(testCase.store): indexes")
            migrated += 1
        }
        XCTAssertGreaterThanOrEqual(migrated, 6)
    }

    private struct Schema {
        /// Table name → column name → declared type.
        var tables: [String: [String: String]] = [:]
        /// Index name → "UNIQUE? table(columns)".
        var indexes: [String: String] = [:]
    }

    private static func schema(of url: URL) throws -> Schema {
        let connection = try SQLiteConnection(path: url.path, mode: .readOnly, log: .disabled)
        var schema = Schema()
        var tables: [String] = []
        try connection.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'") { row in
            if let name = row.string(at: 0) { tables.append(name) }
        }
        for table in tables {
            var columns: [String: String] = [:]
            try connection.query("SELECT name, type FROM pragma_table_info(?)", [.text(table)]) { row in
                if let name = row.string(at: 0) { columns[name] = row.string(at: 1) ?? "" }
            }
            schema.tables[table] = columns
            var indexes: [(String, Bool)] = []
            try connection.query("SELECT name, \"unique\" FROM pragma_index_list(?) WHERE origin = 'c'", [.text(table)]) { row in
                if let name = row.string(at: 0) { indexes.append((name, row.int64(at: 1) == 1)) }
            }
            for (name, unique) in indexes {
                var columns: [String] = []
                try connection.query("SELECT name FROM pragma_index_info(?) ORDER BY seqno", [.text(name)]) { row in
                    columns.append(row.string(at: 0) ?? "?")
                }
                schema.indexes[name] = (unique ? "UNIQUE " : "") + "\(table)(\(columns.joined(separator: ", ")))"
            }
        }
        return schema
    }
}
