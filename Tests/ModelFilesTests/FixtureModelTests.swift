import Foundation
import ModelFiles
import StoreCore
import StoreTestSupport
import XCTest

/// Every Xcode model in the Core Data fixtures loads, and what each file says — its entities,
/// attributes, relationships, indexes, constraints, templates, configurations and a sample of
/// property details — is what the loaded model holds.
final class FixtureModelTests: XCTestCase {
    /// Counts taken from each `contents` file: entities, attributes, relationships, fetch indexes,
    /// uniqueness constraints, fetch request templates, configurations, fetched properties.
    private static let expectedCounts: [(path: String, entities: Int, attributes: Int, relationships: Int, indexes: Int, constraints: Int, templates: Int, configurations: Int, fetchedProperties: Int)] = [
        ("JohnEstropia__CoreStore/Classic.ColorsDemo.xcdatamodeld/ColorsDemo.xcdatamodel", 1, 4, 0, 0, 0, 0, 0, 1),
        ("JohnEstropia__CoreStore/Model.xcdatamodeld/Model.xcdatamodel", 2, 16, 4, 0, 0, 0, 2, 0),
        ("SyncDB__Sync/Model.xcdatamodeld/Model.xcdatamodel", 12, 54, 12, 0, 0, 0, 0, 0),
        ("SyncDB__Sync/Ordered.xcdatamodeld/Ordered.xcdatamodel", 2, 21, 2, 0, 0, 0, 0, 0),
        ("bignerdranch__CoreDataStack/Sample.xcdatamodeld/TestModel 2.xcdatamodel", 3, 4, 4, 0, 0, 0, 0, 0),
        ("bignerdranch__CoreDataStack/Sample.xcdatamodeld/TestModel.xcdatamodel", 2, 3, 2, 0, 0, 0, 0, 0),
        ("bignerdranch__CoreDataStack/UniqueConstraintModel.xcdatamodeld/UniqueConstraintModel.xcdatamodel", 3, 4, 4, 0, 1, 0, 0, 0),
        ("duckduckgo__BrowserServicesKit/BookmarksModel.xcdatamodeld/BookmarksModel.xcdatamodel", 1, 5, 4, 0, 0, 0, 0, 0),
        ("duckduckgo__BrowserServicesKit/BookmarksModel.xcdatamodeld/BookmarksModel 2.xcdatamodel", 1, 5, 4, 2, 0, 0, 0, 0),
        ("duckduckgo__BrowserServicesKit/BookmarksModel.xcdatamodeld/BookmarksModel 3.xcdatamodel", 1, 6, 4, 3, 0, 0, 0, 0),
        ("duckduckgo__BrowserServicesKit/BookmarksModel.xcdatamodeld/BookmarksModel 4.xcdatamodel", 1, 6, 4, 3, 0, 0, 0, 0),
        ("duckduckgo__BrowserServicesKit/BookmarksModel.xcdatamodeld/BookmarksModel 5.xcdatamodel", 1, 7, 4, 3, 0, 0, 0, 0),
        ("duckduckgo__BrowserServicesKit/BookmarksModel.xcdatamodeld/BookmarksModel 6.xcdatamodel", 1, 8, 4, 3, 0, 0, 0, 0),
        ("duckduckgo__BrowserServicesKit/BrowsingHistory.xcdatamodeld/BrowsingHistory.xcdatamodel", 2, 10, 2, 0, 0, 0, 0, 0),
        ("duckduckgo__BrowserServicesKit/SyncMetadata.xcdatamodeld/SyncMetadata.xcdatamodel", 1, 2, 0, 1, 1, 0, 0, 0),
        ("duckduckgo__BrowserServicesKit/SyncMetadata.xcdatamodeld/SyncMetadata 2.xcdatamodel", 1, 3, 0, 1, 1, 0, 0, 0),
        ("duckduckgo__BrowserServicesKit/SyncMetadata.xcdatamodeld/SyncMetadata 3.xcdatamodel", 2, 5, 0, 2, 2, 0, 0, 0),
        ("duckduckgo__BrowserServicesKit/SyncMetadata.xcdatamodeld/SyncMetadata 4.xcdatamodel", 2, 6, 0, 2, 2, 0, 0, 0),
        ("magicalpanda__MagicalRecord/TestModel.xcdatamodeld/TestModel.xcdatamodel", 12, 29, 9, 0, 0, 0, 0, 0),
        ("rentzsch__mogenerator/test.xcdatamodel", 9, 24, 4, 0, 0, 5, 0, 0),
        ("vdhamer__Earthquakes/Earthquakes.xcdatamodeld/Earthquakes.xcdatamodel", 1, 4, 0, 0, 1, 0, 0, 0),
    ]

    /// Models whose files set `valueTransformerName` on URI/String attributes, which Core Data
    /// ignores — the only warnings the fixtures give.
    private static let expectedWarnings: [String: Int] = [
        "duckduckgo__BrowserServicesKit/BrowsingHistory.xcdatamodeld/BrowsingHistory.xcdatamodel": 2,
    ]

    private func fixture(_ path: String) throws -> URL {
        guard let url = CoreDataFixtures.model(path) else { throw XCTSkip("the Core Data fixtures are not present beside the repository") }
        return url
    }

    func testEveryFixtureModelLoadsWithTheCountsItsFileStates() throws {
        for expected in Self.expectedCounts {
            let version = try ModelVersion(contentsOf: try fixture(expected.path))
            let entities = version.model.entities
            let declared = entities.flatMap(\.declaredProperties)
            XCTAssertEqual(entities.count, expected.entities, "entities of \(expected.path)")
            XCTAssertEqual(declared.filter { $0 is AttributeDescription }.count, expected.attributes, "attributes of \(expected.path)")
            XCTAssertEqual(declared.filter { $0 is RelationshipDescription }.count, expected.relationships, "relationships of \(expected.path)")
            XCTAssertEqual(entities.map(\.indexes.count).reduce(0, +), expected.indexes, "indexes of \(expected.path)")
            XCTAssertEqual(entities.map(\.uniquenessConstraints.count).reduce(0, +), expected.constraints, "constraints of \(expected.path)")
            XCTAssertEqual(version.model.fetchRequestTemplatesByName.count, expected.templates, "templates of \(expected.path)")
            XCTAssertEqual(version.model.configurations.count, expected.configurations, "configurations of \(expected.path)")
            XCTAssertEqual(entities.map(\.fetchedProperties.count).reduce(0, +), expected.fetchedProperties, "fetched properties of \(expected.path)")
            XCTAssertEqual(version.warnings.count, Self.expectedWarnings[expected.path] ?? 0, "warnings of \(expected.path): \(version.warnings)")
        }
    }

    func testXcode3ModelsInTheFixturesAreReportedAsUnsupported() throws {
        for path in ["fruitsamples__iPhoneCoreDataRecipes/Recipes.xcdatamodel", "gilpa__iphone_sqlite_test/CoreDataBooks.xcdatamodel"] {
            guard let url = CoreDataFixtures.storeDirectoryFile(path) else { throw XCTSkip("the Core Data fixtures are not present beside the repository") }
            XCTAssertThrowsError(try ManagedObjectModel(contentsOf: url)) { error in
                XCTAssertEqual((error as? ModelFileError)?.code, .unsupportedFormat, "\(error)")
                XCTAssertTrue("\(error)".contains("Xcode 3"), "\(error)")
            }
        }
    }

    func testMogeneratorModelKeepsInheritanceClassesRulesTemplatesAndUserInfo() throws {
        let model = try ManagedObjectModel(contentsOf: try fixture("rentzsch__mogenerator/test.xcdatamodel"))
        let parent = try model.entity(named: "Parent")
        XCTAssertEqual(parent.superentity?.name, "Human")
        XCTAssertEqual(parent.representedClassName, "ParentMO")
        XCTAssertEqual(parent.attributes.count, 16, "13 declared + 3 inherited from Human")
        XCTAssertEqual(parent.attributesByName["myDecimal"]?.attributeType, .decimal)
        XCTAssertEqual(parent.attributesByName["myInt16Transient"]?.isTransient, true)
        XCTAssertEqual(parent.attributesByName["myTransformableSansClassName"]?.attributeType, .transformable(named: "NSKeyedUnarchiveFromData"))
        let human = try model.entity(named: "Human")
        XCTAssertEqual(Set(human.subentities.map(\.name)), ["Child", "Parent", "Uncle"])
        XCTAssertEqual(human.attributesByName["age"]?.validationRules, [.minimum(.integer(0))])
        XCTAssertEqual(human.attributesByName["age"]?.isOptional, false)
        XCTAssertEqual(human.attributesByName["age"]?.defaultValue, .integer(0))
        XCTAssertEqual(human.attributesByName["age"]?.userInfo, ["mogenerator.readonly": "true"])
        XCTAssertEqual(human.userInfo["key with.dots..."], "value with \"quotes\"")
        let children = try XCTUnwrap(parent.relationshipsByName["children"])
        XCTAssertTrue(children.isToMany)
        XCTAssertNil(children.inverseName, "a to-many without an inverse loads")
        XCTAssertEqual(children.deleteRule, .cascade)
        let ordered = try XCTUnwrap(parent.relationshipsByName["orderedChildren"])
        XCTAssertTrue(ordered.isOrdered)
        XCTAssertTrue(ordered.inverseRelationship === model.entitiesByName["Child"]?.relationshipsByName["parent"])
        XCTAssertNil(human.relationshipsByName["meaninglessRelationship"]?.inverseName)
        let template = try XCTUnwrap(model.fetchRequestTemplate(forName: "byParentName"))
        XCTAssertEqual(template.entityName, "Child")
        XCTAssertEqual(template.predicate?.variableNames, ["parentName"])
        let request: FetchRequest<ManagedObject> = try model.fetchRequestFromTemplate(withName: "byHumanName", substitutionVariables: ["humanName": "Ann"])
        XCTAssertEqual(request.storeRequest.predicate, try StorePredicate(format: "humanName == %@", "Ann"))
    }

    func testBookmarksPackageLoadsEveryVersionWithTheCurrentOneFromXCCurrentVersion() throws {
        let bundle = try ManagedObjectModelBundle(contentsOf: try fixture("duckduckgo__BrowserServicesKit/BookmarksModel.xcdatamodeld"))
        XCTAssertEqual(bundle.versions.map(\.name), ["BookmarksModel", "BookmarksModel 2", "BookmarksModel 3", "BookmarksModel 4", "BookmarksModel 5", "BookmarksModel 6"])
        XCTAssertEqual(bundle.currentVersionName, "BookmarksModel 6")
        XCTAssertEqual(bundle.currentModel.entitiesByName["BookmarkEntity"]?.attributes.count, 8)
        XCTAssertTrue(bundle.warnings.isEmpty, "\(bundle.warnings)")
        let entity = try XCTUnwrap(bundle.currentModel.entitiesByName["BookmarkEntity"])
        XCTAssertEqual(entity.attributesByName["url"]?.versionHashModifier, "3")
        XCTAssertEqual(entity.attributesByName["isPendingDeletion"]?.defaultValue, .boolean(false))
        XCTAssertEqual(entity.attributesByName["isFolder"]?.isOptional, false)
        XCTAssertEqual(entity.relationshipsByName["favoriteFolders"]?.renamingIdentifier, "favoriteFolder")
        XCTAssertEqual(entity.relationshipsByName["favorites"]?.isOrdered, true)
        XCTAssertEqual(entity.relationshipsByName["children"]?.deleteRule, .cascade)
        XCTAssertEqual(entity.indexes.first { $0.name == "byUUID" }?.elements, [.init("uuid"), .init("isPendingDeletion")])
        XCTAssertEqual(bundle.version(named: "BookmarksModel 2.xcdatamodel")?.model.entitiesByName["BookmarkEntity"]?.attributes.count, 5)

        // ManagedObjectModel(contentsOf:) on the package gives the current version.
        let current = try ManagedObjectModel(contentsOf: try fixture("duckduckgo__BrowserServicesKit/BookmarksModel.xcdatamodeld"))
        XCTAssertEqual(current.entityVersionHashesByName, bundle.currentModel.entityVersionHashesByName)
    }

    func testConstraintsConfigurationsFetchedPropertiesAndRenamingIdentifiersLoad() throws {
        let sync = try ManagedObjectModel(contentsOf: try fixture("duckduckgo__BrowserServicesKit/SyncMetadata.xcdatamodeld"))
        XCTAssertEqual(sync.entitiesByName["SyncFeatureEntity"]?.uniquenessConstraints, [["name"]])
        XCTAssertEqual(sync.entitiesByName["SyncFeatureEntity"]?.indexes, [FetchIndexDescription(name: "byName", elements: [.init("name")])])

        let store = try ManagedObjectModel(contentsOf: try fixture("JohnEstropia__CoreStore/Model.xcdatamodeld"))
        XCTAssertEqual(store.configurations, ["Config1": ["TestEntity1AAA"], "Config2": ["TestEntity2"]])
        XCTAssertEqual(try store.entities(forConfiguration: "Config2").map(\.name), ["TestEntity2"])
        XCTAssertEqual(store.entitiesByName["TestEntity1AAA"]?.representedClassName, ".TestEntity1")

        let colors = try ManagedObjectModel(contentsOf: try fixture("JohnEstropia__CoreStore/Classic.ColorsDemo.xcdatamodeld"))
        let palette = try XCTUnwrap(colors.entitiesByName["Palette"])
        XCTAssertEqual(palette.fetchedProperties.map(\.name), ["testFetchProperty"])
        XCTAssertEqual(palette.fetchedProperties.first?.fetchRequest.entityName, "Palette")
        XCTAssertEqual(palette.attributesByName["hue"]?.defaultValue, .float(0))
        XCTAssertEqual(palette.attributesByName["colorGroup"]?.isTransient, true)

        let history = try ModelVersion(contentsOf: try fixture("duckduckgo__BrowserServicesKit/BrowsingHistory.xcdatamodeld/BrowsingHistory.xcdatamodel"))
        let entry = try XCTUnwrap(history.model.entitiesByName["BrowsingHistoryEntryManagedObject"])
        XCTAssertEqual(entry.attributesByName["numberOfTotalVisits"]?.renamingIdentifier, "numberOfVisits")
        XCTAssertEqual(entry.attributesByName["identifier"]?.attributeType, .uuid)
        XCTAssertEqual(entry.attributesByName["url"]?.attributeType, .uri)
        XCTAssertTrue(history.warnings.allSatisfy { $0.message.contains("valueTransformerName") && $0.line > 0 }, "\(history.warnings)")

        let magical = try ManagedObjectModel(contentsOf: try fixture("magicalpanda__MagicalRecord/TestModel.xcdatamodeld"))
        XCTAssertEqual(magical.entities.filter(\.isAbstract).count, 1)
    }
}

/// The version hashes Core Data recorded in the fixture stores (`NSStoreModelVersionHashes` in
/// `Z_METADATA`) are reproduced from the Xcode model files alone.
final class CoreDataVersionHashTests: XCTestCase {
    private static let recorded: [(version: String, hashes: [String: String])] = [
        ("duckduckgo__BrowserServicesKit/BookmarksModel.xcdatamodeld/BookmarksModel.xcdatamodel", ["BookmarkEntity": "c37ad9b31a1ce3faf258164444717a730317dee04efa4191d31086d2179f9c20"]),
        ("duckduckgo__BrowserServicesKit/BookmarksModel.xcdatamodeld/BookmarksModel 2.xcdatamodel", ["BookmarkEntity": "99d650930f7e484410207feedd129b42f5e7acff83ab6a9bf61b9a6d88bdd382"]),
        ("duckduckgo__BrowserServicesKit/BookmarksModel.xcdatamodeld/BookmarksModel 3.xcdatamodel", ["BookmarkEntity": "698b764beb72a2bc90217ab9a670d90d9ce1663b71c15f675ccbfb46e7ff76a5"]),
        ("duckduckgo__BrowserServicesKit/BookmarksModel.xcdatamodeld/BookmarksModel 4.xcdatamodel", ["BookmarkEntity": "6a086c9544c0adc6674e37b1a2cd4bc7edcd94de224c61fc603864844cb5f8f6"]),
        ("duckduckgo__BrowserServicesKit/BookmarksModel.xcdatamodeld/BookmarksModel 5.xcdatamodel", ["BookmarkEntity": "84f07c047d39108d666df9d08af728b3197383bda698febf3b90997db4fd5929"]),
        ("duckduckgo__BrowserServicesKit/SyncMetadata.xcdatamodeld/SyncMetadata 3.xcdatamodel", [
            "SyncableSettingsMetadata": "d3b4d556db699538ab922ef424e5a35caa7ed626f29a1d8f03bf509c3d737c2d",
            "SyncFeatureEntity": "289b89703a3216afe973a07e1889534d8650777e44ef899930569c6721eac357",
        ]),
        ("bignerdranch__CoreDataStack/Sample.xcdatamodeld/TestModel.xcdatamodel", [
            "Author": "cbc1f5c274ebf414474c4e350f73b14b1dd356c22782ae7488810d597188c46d",
            "Book": "292c923e48c2cbeea5a113bb7685fbc63ab800c0bbc242ad17a0f2e2a1e08f5c",
        ]),
    ]

    func testCoreDataHashesOfFixtureModelsEqualWhatCoreDataRecordedInTheirStores() throws {
        for (path, hashes) in Self.recorded {
            guard let url = CoreDataFixtures.model(path) else { throw XCTSkip("the Core Data fixtures are not present beside the repository") }
            let model = try ManagedObjectModel(contentsOf: url)
            let computed = model.coreDataEntityVersionHashesByName.mapValues { $0.map { String(format: "%02x", $0) }.joined() }
            XCTAssertEqual(computed, hashes, path)
        }
    }

    func testBundlePicksTheVersionAStoreWasWrittenWithByItsHashes() throws {
        guard let url = CoreDataFixtures.model("duckduckgo__BrowserServicesKit/BookmarksModel.xcdatamodeld") else {
            throw XCTSkip("the Core Data fixtures are not present beside the repository")
        }
        let bundle = try ManagedObjectModelBundle(contentsOf: url)
        for (offset, (_, hashes)) in Self.recorded.prefix(5).enumerated() {
            let metadata = StoreMetadata(storeType: "SQLite", modelVersionHashes: hashes.mapValues { hex in
                Data(stride(from: 0, to: hex.count, by: 2).map { UInt8(hex.dropFirst($0).prefix(2), radix: 16) ?? 0 })
            })
            XCTAssertEqual(bundle.version(compatibleWithStoreMetadata: metadata)?.name, offset == 0 ? "BookmarksModel" : "BookmarksModel \(offset + 1)")
        }
    }
}
