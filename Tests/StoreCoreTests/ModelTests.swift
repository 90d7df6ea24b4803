import Foundation
import StoreCore
import StoreTestSupport
import XCTest

final class ModelTests: XCTestCase {
    func testBlogModelBuildsWithInheritanceAndInverses() throws {
        let model = try BlogModel.make()
        XCTAssertEqual(model.entities.map(\.name), ["Author", "Book", "Comment", "Film", "Item", "Photo", "Post", "Tag"])
        let item = try model.entity(named: "Item")
        XCTAssertEqual(Set(item.subentities.map(\.name)), ["Book", "Film"])
        XCTAssertEqual(try model.entity(named: "Book").properties.map(\.name), ["label", "isbn"])
        let comments = try XCTUnwrap(model.entitiesByName["Post"]?.relationshipsByName["comments"])
        XCTAssertEqual(comments.inverseRelationship?.name, "post")
        XCTAssertTrue(comments.destinationEntity === model.entitiesByName["Comment"])
        XCTAssertEqual(model.entitiesByName["Post"]?.indexes.first?.name, "byTime")
        XCTAssertEqual(try model.entities(forConfiguration: "People").map(\.name), ["Author"])
    }

    func testMissingInverseUnknownDestinationAndDuplicatesAreAllReported() {
        XCTAssertThrowsError(try ManagedObjectModel {
            EntityDescription("B") { .attribute("x", .string) }
            EntityDescription("B") { .attribute("y", .string) }
        }) { error in
            XCTAssertEqual((error as? ModelError)?.code, .duplicateEntity)
        }
        XCTAssertThrowsError(try ManagedObjectModel {
            EntityDescription("A") {
                .attribute("name", .string)
                .attribute("name", .integer16)
                .toOne("b", destination: "B", inverse: "missing")
                .toOne("ghost", destination: "Nowhere", inverse: "a")
            }
            EntityDescription("B") { .attribute("x", .string) }
        }) { error in
            guard let error = error as? ModelError else { return XCTFail("wrong error \(error)") }
            XCTAssertEqual(error.code, .duplicateProperty)
        }
        XCTAssertThrowsError(try ManagedObjectModel {
            EntityDescription("A") {
                .toOne("b", destination: "B", inverse: "missing")
                .toOne("ghost", destination: "Nowhere", inverse: "a")
                .attribute("count", .integer16, defaultValue: .integer(100_000))
            }
            EntityDescription("B") { .attribute("x", .string) }
        }) { error in
            guard let error = error as? ModelError else { return XCTFail("wrong error \(error)") }
            // A missing inverse is a warning (ModelWarningTests), which a refused model does not show.
            let codes = Set(error.detailedErrors.map(\.code))
            XCTAssertEqual(codes, [.unknownDestination, .invalidDefaultValue])
            XCTAssertTrue(error.description.contains("A.ghost: destination entity Nowhere does not exist"), error.description)
        }
    }

    func testInvalidNamesParentsAndRulesAreRefused() {
        XCTAssertThrowsError(try ManagedObjectModel {
            EntityDescription("1Bad") {}
        }) { XCTAssertEqual(($0 as? ModelError)?.code, .invalidName) }
        XCTAssertThrowsError(try ManagedObjectModel {
            EntityDescription("Child", parent: "Nobody") {}
        }) { XCTAssertEqual(($0 as? ModelError)?.code, .unknownParent) }
        XCTAssertThrowsError(try ManagedObjectModel {
            EntityDescription("A", parent: "B") {}
            EntityDescription("B", parent: "A") {}
        }) { XCTAssertEqual(($0 as? ModelError)?.code, .inheritanceCycle) }
        XCTAssertThrowsError(try ManagedObjectModel {
            EntityDescription("A") { .attribute("code", .string, rules: [.minimum("low")]) }
        }) { XCTAssertEqual(($0 as? ModelError)?.code, .invalidValidationRule) }
        XCTAssertThrowsError(try ManagedObjectModel {
            EntityDescription("A", uniquenessConstraints: [["nope"]]) { .attribute("code", .string) }
        }) { XCTAssertEqual(($0 as? ModelError)?.code, .invalidConstraint) }
        XCTAssertThrowsError(try ManagedObjectModel(configurations: ["Local": ["Ghost"]]) {
            EntityDescription("A") {}
        }) { XCTAssertEqual(($0 as? ModelError)?.code, .unknownConfiguration) }
    }

    func testSubclassDeclaringUnknownOrMistypedPropertyIsRefused() {
        final class Wrong: ManagedObject {
            @Attribute var title: Int64
            @Attribute var missing: String?
        }
        XCTAssertThrowsError(try ManagedObjectModel {
            EntityDescription("Wrong", class: Wrong.self) { .attribute("title", .string) }
        }) { error in
            let details = (error as? ModelError)?.detailedErrors ?? []
            XCTAssertEqual(details.map(\.code), [.classMismatch, .classMismatch])
            XCTAssertEqual(Set(details.compactMap(\.key)), ["title", "missing"])
        }
    }

    func testVersionHashesAreStableAndChangeWithTheModel() throws {
        let first = try BlogModel.make()
        let second = try BlogModel.make()
        XCTAssertEqual(first.versionHash, second.versionHash)
        XCTAssertEqual(first.entityVersionHashesByName, second.entityVersionHashesByName)
        XCTAssertEqual(first.versionHash.count, 32)
        let changed = try ManagedObjectModel { EntityDescription("Post") { .attribute("title", .string) } }
        let other = try ManagedObjectModel { EntityDescription("Post") { .attribute("title", .integer32) } }
        XCTAssertNotEqual(changed.entitiesByName["Post"]?.versionHash, other.entitiesByName["Post"]?.versionHash)
        // Transient properties and user info do not change how objects are stored.
        let transient = try ManagedObjectModel {
            EntityDescription("Post", userInfo: ["note": "x"]) {
                .attribute("title", .string)
                .attribute("scratch", .string, transient: true)
            }
        }
        XCTAssertEqual(changed.versionHash, transient.versionHash)
    }

    func testLightweightMigrationNeedsDefaultsForNewRequiredAttributes() throws {
        let old = try ManagedObjectModel { EntityDescription("Post") { .attribute("title", .string) } }
        let good = try ManagedObjectModel {
            EntityDescription("Post") {
                .attribute("title", .string)
                .attribute("views", .integer64, optional: false, defaultValue: 0)
            }
        }
        XCTAssertNoThrow(try good.checkLightweightMigration(from: old))
        let bad = try ManagedObjectModel {
            EntityDescription("Post") {
                .attribute("title", .string)
                .attribute("slug", .string, optional: false)
            }
        }
        XCTAssertThrowsError(try bad.checkLightweightMigration(from: old)) { error in
            XCTAssertEqual((error as? ModelError)?.code, .requiredAttributeWithoutDefault)
            XCTAssertEqual((error as? ModelError)?.key, "slug")
        }
    }

    func testEntityDescriptionBelongsToOneModel() throws {
        let entity = EntityDescription("Solo") { .attribute("x", .string) }
        let owner = try ManagedObjectModel { entity }
        XCTAssertThrowsError(try ManagedObjectModel { entity }) { error in
            XCTAssertEqual((error as? ModelError)?.code, .duplicateEntity)
        }
        XCTAssertTrue(entity.model === owner)
    }
}
