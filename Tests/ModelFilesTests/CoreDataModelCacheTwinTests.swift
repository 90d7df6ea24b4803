import Foundation
@testable import ModelFiles
@testable import SQLiteBackend
import StoreCore
import StoreTestSupport
import XCTest

/// The model cache (`Z_MODELCACHE`) of a store Stowage creates is Core Data's: for every
/// Apple-written fixture store with a model, the twin's cache decodes into the model it was made
/// from, and is laid out as the Apple-written cache of the same model — the same objects (model,
/// entities, properties, indexes and their elements, by name), each of the same class, with the
/// same keys and the same values (flags, types, counts, names, references), apart from what the
/// Core Data release that wrote the fixture did differently (``olderCoreData``).
final class CoreDataModelCacheTwinTests: XCTestCase {
    /// What Core Data build 637 (iOS 8) archived differently from today's: version identifiers in
    /// an `NSMutableSet`, no sub-entity dictionary for an entity without sub-entities.
    private static let olderCoreData: [Int64: [(apple: String, ours: String)]] = [
        637: [
            ("NSVersionIdentifiers=NSMutableSet", "NSVersionIdentifiers=NSSet"),
            ("NSSubentities=nil", "NSSubentities=NSMutableDictionary{}"),
        ]
    ]

    func testTheCacheOfEveryTwinDecodesIntoItsModel() throws {
        guard CoreDataFixtures.arePresent else { throw XCTSkip("the Core Data fixtures are not present beside the repository") }
        for testCase in CoreDataTwinTests.cases {
            let (apple, ours, directory) = try twin(of: testCase)
            _ = directory
            let model = try CoreDataTwinTests.model(testCase.model, store: apple)
            let cache = try XCTUnwrap(try SQLiteModelCache.compressedContent(ofStoreAt: ours), "\(testCase.store): the twin has a model cache")
            let cached = try CoreDataModelCache.version(decoding: cache, storeURL: ours)
            XCTAssertTrue(cached.warnings.isEmpty, "\(testCase.store): \(cached.warnings)")
            let difference = ModelSummary.difference(ModelSummary.lines(cached.model), ModelSummary.lines(model))
            XCTAssertNil(difference, "\(testCase.store): \(difference ?? "")")
            XCTAssertEqual(cached.model.coreDataEntityVersionHashesByName, model.coreDataEntityVersionHashesByName, testCase.store)
            XCTAssertEqual(cached.model.entities.map(\.indexes), model.entities.map(\.indexes), "\(testCase.store): indexes in order")
        }
    }

    func testTheCacheOfEveryTwinIsLaidOutAsCoreDataLaysItOut() throws {
        guard CoreDataFixtures.arePresent else { throw XCTSkip("the Core Data fixtures are not present beside the repository") }
        for testCase in CoreDataTwinTests.cases {
            let (apple, ours, directory) = try twin(of: testCase)
            _ = directory
            var appleOutline = try ArchiveOutline(cacheOf: apple).lines
            let ourOutline = try ArchiveOutline(cacheOf: ours).lines
            let connection = try SQLiteConnection(path: apple.path, mode: .readOnly, log: .disabled)
            if case .blob(let plist)? = try connection.scalar("SELECT Z_PLIST FROM Z_METADATA"),
                case .dictionary(let metadata) = try BinaryPropertyListReader().read(plist),
                let version = metadata["NSPersistenceFrameworkVersion"]?.integerValue
            {
                for (theirs, today) in Self.olderCoreData[version] ?? [] {
                    appleOutline = appleOutline.map { $0.replacingOccurrences(of: theirs, with: today) }
                }
            }
            let difference = ModelSummary.difference(ourOutline, appleOutline)
            XCTAssertNil(difference, "\(testCase.store): \(difference ?? "")")
        }
    }

    /// Every setting a model can carry survives a SQLite store's cache, and the store notes
    /// nothing left out.
    func testEverySettingSurvivesTheStoresCache() throws {
        let model = try CompiledModelFeatureTests.featureModel()
        let directory = try TemporaryDirectory()
        let url = directory.file("Places.sqlite")
        let container = try TestStack.sqliteContainer(model, at: url)
        try container.persistentStoreCoordinator.persistentStores.forEach { try container.persistentStoreCoordinator.removePersistentStore($0) }
        let cache = try XCTUnwrap(try SQLiteModelCache.compressedContent(ofStoreAt: url))
        let cached = try CoreDataModelCache.version(decoding: cache, storeURL: url)
        XCTAssertTrue(cached.warnings.isEmpty, "\(cached.warnings)")
        let difference = ModelSummary.difference(ModelSummary.lines(cached.model), ModelSummary.lines(model))
        XCTAssertNil(difference, difference ?? "")
        var archiver = CompiledModelArchiver()
        _ = try archiver.encode(model)
        XCTAssertEqual(archiver.leftOut, [])
    }

    /// A template whose predicate has no archived form (`SUBQUERY`) is left out of the cache and
    /// named in ``CompiledModelArchiver/leftOut``; the rest of the model is cached.
    func testWhatTheArchiveCannotHoldIsNamed() throws {
        var template = StoreFetchRequest(entityName: "Post")
        template.predicate = try StorePredicate(format: "SUBQUERY(comments, $c, $c.body CONTAINS 'x').@count > 0")
        let model = try ManagedObjectModel(fetchRequestTemplates: ["commented": template]) {
            EntityDescription("Post") {
                .attribute("title", .string)
                .toMany("comments", destination: "Comment", inverse: "post")
            }
            EntityDescription("Comment") {
                .attribute("body", .string)
                .toOne("post", destination: "Post", inverse: "comments")
            }
        }
        var archiver = CompiledModelArchiver()
        let version = try CompiledModelFile.decode(try archiver.encode(model), name: "Blog", url: URL(fileURLWithPath: "/Blog.mom"))
        XCTAssertEqual(archiver.skippedTemplates, ["commented"])
        XCTAssertEqual(archiver.leftOut.count, 1)
        XCTAssertTrue(archiver.leftOut.first?.contains("commented") == true, "\(archiver.leftOut)")
        XCTAssertEqual(Set(version.model.entities.map(\.name)), Set(model.entities.map(\.name)))
    }

    /// A store migrated in place caches the destination model and records its version
    /// identifiers, as Core Data's migrations do.
    func testAMigrationCachesTheDestinationAndRecordsItsIdentifiers() throws {
        let v1 = try ManagedObjectModel(versionIdentifiers: ["1"]) {
            EntityDescription("Note") { .attribute("body", .string) }
        }
        let v2 = try ManagedObjectModel(versionIdentifiers: ["2"]) {
            EntityDescription("Note") {
                .attribute("body", .string)
                .attribute("title", .string)
            }
        }
        v2.migrationSourceModels = [v1]
        let directory = try TemporaryDirectory()
        let url = directory.file("Notes.sqlite")
        for model in [v1, v2] {
            let container = try TestStack.sqliteContainer(model, at: url)
            try container.persistentStoreCoordinator.persistentStores.forEach { try container.persistentStoreCoordinator.removePersistentStore($0) }
        }
        let connection = try SQLiteConnection(path: url.path, mode: .readOnly, log: .disabled)
        guard case .blob(let plist)? = try connection.scalar("SELECT Z_PLIST FROM Z_METADATA"),
            case .dictionary(let metadata) = try BinaryPropertyListReader().read(plist)
        else { return XCTFail("the store has no metadata") }
        XCTAssertEqual(metadata["NSStoreModelVersionIdentifiers"], .array([.string("2")]))
        let cache = try XCTUnwrap(try SQLiteModelCache.compressedContent(ofStoreAt: url))
        let cached = try CoreDataModelCache.version(decoding: cache, storeURL: url).model
        XCTAssertNil(ModelSummary.difference(ModelSummary.lines(cached), ModelSummary.lines(v2)))
    }

    private func twin(of testCase: CoreDataTwinTests.Case) throws -> (apple: URL, ours: URL, directory: TemporaryDirectory) {
        let directory = try TemporaryDirectory()
        let apple = try XCTUnwrap(try CoreDataFixtures.copyOfStore(testCase.store, into: directory.url), testCase.store)
        let model = try CoreDataTwinTests.model(testCase.model, store: apple)
        let ours = directory.file("twin.sqlite")
        let container = try TestStack.sqliteContainer(model, at: ours)
        try container.persistentStoreCoordinator.persistentStores.forEach { try container.persistentStoreCoordinator.removePersistentStore($0) }
        return (apple, ours, directory)
    }
}

/// A compiled model as lines, one per object Core Data names — the model, each entity, property,
/// fetch index and index element — with its class, and each of its keys with its value: scalars
/// as written, strings as text (`NSString` objects too), references to named objects by name,
/// collections with their class and members (sets and dictionaries in key order).
struct ArchiveOutline {
    private let graph: KeyedArchiveGraph
    private var names: [UInt64: String] = [:]
    private(set) var lines: [String] = []

    init(cacheOf store: URL) throws {
        let compressed = try XCTUnwrap(try SQLiteModelCache.compressedContent(ofStoreAt: store), "\(store.lastPathComponent) has a model cache")
        graph = try KeyedArchiveGraph(try Inflater.inflate(compressed, limit: CoreDataModelCache.maxInflatedSize))
        try nameObjects()
        for (reference, name) in names.sorted(by: { $0.value < $1.value }) {
            guard let instance = try graph.instance(at: reference) else { continue }
            var line = "\(name) <\(instance.className)>"
            for key in instance.fields.keys.sorted() where key != "$class" {
                line += " \(key)=\(try describe(instance.fields[key], depth: 0))"
            }
            lines.append(line)
        }
    }

    private mutating func nameObjects() throws {
        names[graph.root] = "model"
        guard let model = try graph.instance(at: graph.root) else { return }
        for (entityName, entityReference) in try graph.entries(model["NSEntities"]) ?? [] {
            names[entityReference] = "entity \(entityName)"
            guard let entity = try graph.instance(at: entityReference) else { continue }
            for (propertyName, propertyReference) in try graph.entries(entity["NSProperties"]) ?? [] {
                names[propertyReference] = "property \(entityName).\(propertyName)"
            }
            for indexReference in try graph.members(entity["NSFetchIndexDescriptions"]) ?? [] {
                guard let index = try graph.instance(at: indexReference) else { continue }
                let indexName = try graph.string(index["NSIndexName"]) ?? "?"
                names[indexReference] = "index \(entityName).\(indexName)"
                for (position, element) in (try graph.members(index["NSIndexElements"]) ?? []).enumerated() {
                    names[element] = "index \(entityName).\(indexName) element \(position)"
                }
            }
        }
    }

    private func describe(_ field: PropertyListValue?, depth: Int) throws -> String {
        guard let field else { return "nil" }
        guard case .uid(let reference) = field else { return "\(field)" }
        if reference == 0 { return "nil" }
        if let name = names[reference] { return "→" + name }
        if let string = try? graph.string(field) { return "'\(string)'" }
        guard depth < 8, let instance = try graph.instance(at: reference) else { return "\(graph.objects[Int(reference)])" }
        if let entries = try? graph.entries(field) {
            let described = try entries.sorted { $0.key < $1.key }.map { "\($0.key): \(try describe(.uid($0.value), depth: depth + 1))" }
            return "\(instance.className){\(described.joined(separator: ", "))}"
        }
        if let members = try? graph.members(field) {
            var described = try members.map { try describe(.uid($0), depth: depth + 1) }
            if instance.className.hasSuffix("Set") { described.sort() }
            return "\(instance.className)[\(described.joined(separator: ", "))]"
        }
        let fields = try instance.fields.keys.sorted().filter { $0 != "$class" }.map { "\($0)=\(try describe(instance.fields[$0], depth: depth + 1))" }
        return "\(instance.className)(\(fields.joined(separator: " ")))"
    }
}
