import Foundation
@testable import ModelFiles
@testable import SQLiteBackend
import StoreCore
import StoreTestSupport
import Testing

/// The model Core Data caches in its SQLite stores (`Z_MODELCACHE`): every fixture store's
/// cache inflates and decodes into the model its `.xcdatamodel` describes, and Core Data's
/// version hashes of it are the ones the store records.
@Suite struct ModelCacheTests {
    struct Case: Sendable, CustomStringConvertible {
        let store: String
        let package: String
        let version: String
        var description: String { store }
    }

    static let cases = [
        Case(store: "bignerdranch__CoreDataStack/TestModel.sqlite", package: "bignerdranch__CoreDataStack/Sample.xcdatamodeld", version: "TestModel"),
        Case(store: "duckduckgo__BrowserServicesKit/Bookmarks_V1.sqlite", package: "duckduckgo__BrowserServicesKit/BookmarksModel.xcdatamodeld", version: "BookmarksModel"),
        Case(store: "duckduckgo__BrowserServicesKit/Bookmarks_V2.sqlite", package: "duckduckgo__BrowserServicesKit/BookmarksModel.xcdatamodeld", version: "BookmarksModel 2"),
        Case(store: "duckduckgo__BrowserServicesKit/Bookmarks_V3.sqlite", package: "duckduckgo__BrowserServicesKit/BookmarksModel.xcdatamodeld", version: "BookmarksModel 3"),
        Case(store: "duckduckgo__BrowserServicesKit/Bookmarks_V4.sqlite", package: "duckduckgo__BrowserServicesKit/BookmarksModel.xcdatamodeld", version: "BookmarksModel 4"),
        Case(store: "duckduckgo__BrowserServicesKit/Bookmarks_V5.sqlite", package: "duckduckgo__BrowserServicesKit/BookmarksModel.xcdatamodeld", version: "BookmarksModel 5"),
        Case(store: "duckduckgo__BrowserServicesKit/SyncMetadata_V3.sqlite", package: "duckduckgo__BrowserServicesKit/SyncMetadata.xcdatamodeld", version: "SyncMetadata 3"),
    ]

    /// Entity, property, type, optionality, inverse — and destination, to-many, ordered,
    /// transient, delete rule, default — of every property, as lines.
    static func shape(_ model: ManagedObjectModel) -> [String] {
        model.entities.flatMap { entity in
            ["entity \(entity.name) parent=\(entity.superentityName ?? "-") abstract=\(entity.isAbstract) unique=\(entity.uniquenessConstraints)"]
                + entity.declaredProperties.sorted { $0.name < $1.name }.map { property in
                    var line = "  \(entity.name).\(property.name) optional=\(property.isOptional) transient=\(property.isTransient)"
                    if let attribute = property as? AttributeDescription {
                        line += " \(attribute.attributeType) default=\(attribute.defaultValue)"
                    } else if let relationship = property as? RelationshipDescription {
                        line += " → \(relationship.destinationEntityName) inverse=\(relationship.inverseName ?? "-") toMany=\(relationship.isToMany) ordered=\(relationship.isOrdered) delete=\(relationship.deleteRule)"
                    }
                    return line
                }
        }
    }

    @Test(arguments: cases) func theCacheOfEveryFixtureStoreIsTheModelOfItsXcdatamodel(_ testCase: Case) throws {
        let directory = try TemporaryDirectory()
        guard let store = try CoreDataFixtures.copyOfStore(testCase.store, into: directory.url),
            let package = CoreDataFixtures.model(testCase.package)
        else { return }  // the fixtures are not beside the repository
        let source = try #require(try ManagedObjectModelBundle(contentsOf: package).version(named: testCase.version))
        let blob = try #require(try SQLiteModelCache.compressedContent(ofStoreAt: store), "the store has a Z_MODELCACHE")
        let cached = try CoreDataModelCache.version(decoding: blob, storeURL: store)
        #expect(cached.name == CoreDataModelCache.versionName)
        #expect(cached.warnings.isEmpty, "\(cached.warnings)")
        let difference = ModelSummary.difference(Self.shape(cached.model), Self.shape(source.model))
        #expect(difference == nil, "\(difference ?? "")")
        // Core Data's hashes of the cached model are the ones the store records.
        let connection = try SQLiteConnection(path: store.path, mode: .readOnly, log: .disabled)
        let metadata = try SQLiteStoreOpener.readMetadata(on: connection, url: store)
        #expect(cached.model.coreDataEntityVersionHashesByName == metadata.modelVersionHashes)
    }

    @Test func aStoreWithoutACacheHasNone() throws {
        let directory = try TemporaryDirectory()
        guard let store = try CoreDataFixtures.copyOfStore("fruitsamples__iPhoneCoreDataRecipes/Recipes.sqlite", into: directory.url) else { return }
        #expect(try SQLiteModelCache.compressedContent(ofStoreAt: store) == nil)
    }

    @Test func inflatingIsBoundedAndDamagedCachesAreMalformed() throws {
        let directory = try TemporaryDirectory()
        guard let store = try CoreDataFixtures.copyOfStore(Self.cases[0].store, into: directory.url) else { return }
        let blob = try #require(try SQLiteModelCache.compressedContent(ofStoreAt: store))
        let inflated = try Inflater.inflate(blob, limit: CoreDataModelCache.maxInflatedSize)
        #expect(inflated.starts(with: Array("bplist00".utf8)))
        #expect(throws: Inflater.Failure.self) { try Inflater.inflate(blob, limit: inflated.count - 1) }
        #expect(try Inflater.inflate(blob, limit: inflated.count) == inflated)
        for damaged in [blob.prefix(blob.count / 2), Data([0xFF, 0xFF, 0xFF]), Data(), Data("bplist00".utf8)] {
            let error = try #require(throws: ModelFileError.self) { try CoreDataModelCache.version(decoding: Data(damaged), storeURL: store) }
            #expect(error.code == .malformed)
            #expect(error.url == store)
        }
    }

    @Test func aCacheThatInflatesBeyondTheLimitIsTooLarge() throws {
        // Stored (uncompressed) deflate blocks of 65,535 zero bytes, up to just past the limit.
        var blocks = Data()
        let blockSize = 65_535
        let count = CoreDataModelCache.maxInflatedSize / blockSize + 1
        let zeros = Data(count: blockSize)
        for index in 0..<count {
            blocks.append(index == count - 1 ? 0x01 : 0x00)
            blocks.append(contentsOf: [0xFF, 0xFF, 0x00, 0x00])
            blocks.append(zeros)
        }
        let error = try #require(throws: ModelFileError.self) { try CoreDataModelCache.version(decoding: blocks, storeURL: URL(fileURLWithPath: "/x.sqlite")) }
        #expect(error.code == .tooLarge)
    }
}
