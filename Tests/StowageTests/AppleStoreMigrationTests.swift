import Foundation
import StoreCore
import Stowage
import StoreTestSupport
import XCTest

/// Stores Apple's Core Data wrote with older versions of their model open with the current
/// version: migrated in place on load (lightweight), every object kept with its key and values,
/// ordered relationships in their order, the current version cached in `Z_MODELCACHE`; opened
/// again, nothing more is migrated.
final class AppleStoreMigrationTests: XCTestCase {
    private static let cases: [(store: String, package: String)] = [
        ("duckduckgo__BrowserServicesKit/Bookmarks_V1.sqlite", "duckduckgo__BrowserServicesKit/BookmarksModel.xcdatamodeld"),
        ("duckduckgo__BrowserServicesKit/Bookmarks_V2.sqlite", "duckduckgo__BrowserServicesKit/BookmarksModel.xcdatamodeld"),
        ("duckduckgo__BrowserServicesKit/Bookmarks_V3.sqlite", "duckduckgo__BrowserServicesKit/BookmarksModel.xcdatamodeld"),
        ("duckduckgo__BrowserServicesKit/Bookmarks_V4.sqlite", "duckduckgo__BrowserServicesKit/BookmarksModel.xcdatamodeld"),
        ("duckduckgo__BrowserServicesKit/Bookmarks_V5.sqlite", "duckduckgo__BrowserServicesKit/BookmarksModel.xcdatamodeld"),
        ("duckduckgo__BrowserServicesKit/SyncMetadata_V3.sqlite", "duckduckgo__BrowserServicesKit/SyncMetadata.xcdatamodeld"),
    ]

    /// Every object of every entity as text: its URI's key, its attributes and its relationships
    /// (to-many lists in their order), read with `model`.
    private func snapshot(of url: URL, model: ManagedObjectModel, readOnly: Bool) throws -> [String: [String]] {
        let container = PersistentContainer(name: "Fixture", managedObjectModel: model)
        var description = PersistentStoreDescription(type: .sqlite, url: url)
        description.isReadOnly = readOnly
        container.persistentStoreDescriptions = [description]
        try container.loadPersistentStores()
        defer { for store in container.persistentStoreCoordinator.persistentStores { try? container.persistentStoreCoordinator.removePersistentStore(store) } }
        let context = container.newBackgroundContext()
        return try context.performAndWait {
            var result: [String: [String]] = [:]
            for entity in model.entities {
                var request = FetchRequest<ManagedObject>(entityName: entity.name)
                request.includesSubentities = false
                for object in try context.fetch(request) {
                    var fields = ["#\(object.objectID.uriRepresentation.lastPathComponent)"]
                    for attribute in entity.attributes where !attribute.isTransient {
                        fields.append("\(attribute.name)=\(String(describing: try object.value(forKey: attribute.name)))")
                    }
                    for relationship in entity.relationships {
                        let value = try object.value(forKey: relationship.name)
                        let keys: [String]
                        if let single = value as? ManagedObject {
                            keys = [single.objectID.uriRepresentation.lastPathComponent]
                        } else if let many = value as? [ManagedObject] {
                            keys = many.map { $0.objectID.uriRepresentation.lastPathComponent }
                        } else if let many = value as? Set<ManagedObject> {
                            keys = many.map { $0.objectID.uriRepresentation.lastPathComponent }.sorted()
                        } else {
                            keys = []
                        }
                        fields.append("\(relationship.name)=\(keys)")
                    }
                    result[entity.name, default: []].append(fields.joined(separator: " "))
                }
                result[entity.name]?.sort()
            }
            return result
        }
    }

    func testOlderAppleStoresAreMigratedToTheCurrentVersionOnLoad() throws {
        var migrated = 0
        for testCase in Self.cases {
            let directory = try TemporaryDirectory()
            let rawDirectory = directory.file("raw")
            try FileManager.default.createDirectory(at: rawDirectory, withIntermediateDirectories: true)
            guard let url = try CoreDataFixtures.copyOfStore(testCase.store, into: directory.url),
                let raw = try CoreDataFixtures.copyOfStore(testCase.store, into: rawDirectory),
                let package = CoreDataFixtures.model(testCase.package)
            else { throw XCTSkip("the Core Data fixtures are not present beside the repository") }
            let bundle = try ManagedObjectModelBundle(contentsOf: package)
            let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(at: url)
            let sourceVersion = try XCTUnwrap(bundle.version(compatibleWithStoreMetadata: metadata), testCase.store)
            let current = bundle.currentModel
            XCTAssertFalse(current.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata), "\(testCase.store) is older")

            let before = try snapshot(of: raw, model: sourceVersion.model, readOnly: true)
            let after = try snapshot(of: url, model: current, readOnly: false)
            let mapping = try MappingModel.inferredMappingModel(forSourceModel: sourceVersion.model, destinationModel: current)
            for plan in mapping.entityMappings where plan.mappingType == .copy {
                guard let source = plan.sourceEntityName, let destination = plan.destinationEntityName else { continue }
                XCTAssertEqual(after[destination]?.count ?? 0, before[source]?.count ?? 0, "\(testCase.store): \(destination) keeps every object")
                // Keys and the values of properties both versions have are unchanged.
                let sourceEntity = try XCTUnwrap(sourceVersion.model.entitiesByName[source])
                let common = Set(sourceEntity.properties.map(\.name)).intersection(current.entitiesByName[destination]?.properties.map(\.name) ?? [])
                func kept(_ row: String) -> String {
                    row.split(separator: " ").filter { field in
                        field.hasPrefix("#") || common.contains(where: { field.hasPrefix($0 + "=") })
                    }.joined(separator: " ")
                }
                XCTAssertEqual(after[destination]?.map(kept).sorted(), before[source]?.map(kept).sorted(), "\(testCase.store): \(destination)")
            }
            let reread = try PersistentStoreCoordinator.metadataForPersistentStore(at: url)
            XCTAssertTrue(current.isConfiguration(withName: nil, compatibleWithStoreMetadata: reread), "\(testCase.store) now records the current version")
            // As Core Data does, the store now caches the current version (not the old one, nor none).
            let cache = try XCTUnwrap(try SQLiteModelCache.compressedContent(ofStoreAt: url), "\(testCase.store) caches its model")
            let cached = try CoreDataModelCache.version(decoding: cache, storeURL: url).model
            XCTAssertNil(ModelSummary.difference(ModelSummary.lines(cached), ModelSummary.lines(current)), "\(testCase.store): the cached model is the current version")
            XCTAssertEqual(try snapshot(of: url, model: current, readOnly: true), after, "reopening migrates nothing more")
            XCTAssertGreaterThan(before.values.map(\.count).reduce(0, +), 0, "\(testCase.store) holds objects")
            migrated += 1
        }
        XCTAssertEqual(migrated, Self.cases.count)
    }
}
