import Foundation
import StoreCore
import StoreTestSupport
import XCTest

final class ValidationTests: XCTestCase {
    func testEveryFailureIsReportedTogetherAndNothingIsSaved() throws {
        let container = try TestStack.container()
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let post = try Post(context: context)
            post.title = String(repeating: "x", count: 81)
            post.views = -1
            let comment = try Comment(context: context)
            comment.author = "Not Lowercase"
            comment.post = post
            XCTAssertThrowsError(try context.save()) { error in
                guard let error = error as? ObjectValidationError else { return XCTFail("\(error)") }
                XCTAssertEqual(error.code, .multipleErrors)
                let found = Set(error.allErrors.map { "\($0.entity).\($0.key ?? ""):\($0.code)" })
                XCTAssertEqual(found, ["Post.title:tooLong", "Post.views:tooSmall", "Comment.author:patternMismatch"])
                XCTAssertTrue(error.description.contains("3 validation errors"), error.description)
            }
            XCTAssertTrue(post.isInserted, "the context keeps its changes")
            XCTAssertTrue(post.objectID.isTemporaryID, "IDs go back to temporary after a failed save")
            let reader = container.newBackgroundContext()
            XCTAssertEqual(try reader.performAndWait { try reader.count(for: FetchRequest<Post>()) }, 0)

            post.title = "Fixed"
            post.views = 3
            comment.author = "ada"
            try context.save()
            XCTAssertEqual(try reader.performAndWait { try reader.count(for: FetchRequest<Post>()) }, 1)
        }
    }

    func testRequiredValuesAndRelationshipCounts() throws {
        let model = try ManagedObjectModel {
            EntityDescription("Team") {
                .attribute("name", .string, optional: false)
                .toMany("members", destination: "Member", inverse: "team", minCount: 2, maxCount: 3)
            }
            EntityDescription("Member") { .toOne("team", destination: "Team", inverse: "members", optional: false) }
        }
        let context = try TestStack.context(model)
        try context.performAndWait {
            let team = try context.insertNewObject(forEntityName: "Team")
            let member = try context.insertNewObject(forEntityName: "Member")
            try member.setValue(team, forKey: "team")
            _ = try context.insertNewObject(forEntityName: "Member")
            XCTAssertThrowsError(try context.save()) { error in
                let codes = ((error as? ObjectValidationError)?.allErrors ?? []).map { "\($0.entity).\($0.key ?? ""):\($0.code)" }
                XCTAssertEqual(Set(codes), ["Team.name:missingValue", "Team.members:tooFewObjects", "Member.team:missingValue"])
            }
        }
    }

    func testCustomValidationHookErrorsAreIncluded() throws {
        let context = try TestStack.context()
        try context.performAndWait {
            let post = try Post(context: context)
            post.title = "forbidden"
            XCTAssertThrowsError(try context.save()) { error in
                let failure = (error as? ObjectValidationError)?.allErrors.first
                XCTAssertEqual(failure?.code, .custom)
                XCTAssertTrue(failure?.underlyingError is BlogRuleError)
            }
        }
    }

    func testUniquenessConstraintRefusesDuplicatesAndSavesNothing() throws {
        let container = try TestStack.container()
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let a = try Tag(context: context)
            a.name = "swift"
            try context.save()
            let b = try Tag(context: context)
            b.name = "swift"
            let c = try Tag(context: context)
            c.name = "linux"
            XCTAssertThrowsError(try context.save()) { error in
                XCTAssertEqual((error as? ObjectValidationError)?.code, .uniquenessConstraint)
            }
            context.rollback()
            XCTAssertEqual(try context.count(for: FetchRequest<Tag>()), 1)
        }
    }
}

extension ValidationTests {
    func testTypedSettersNeverLoseAValueSilently() throws {
        final class Gauge: ManagedObject {
            @Attribute var level: Int
        }
        let model = try ManagedObjectModel {
            EntityDescription("Gauge", class: Gauge.self) { .attribute("level", .integer16, optional: false, defaultValue: 0) }
        }
        let context = try TestStack.context(model)
        try context.performAndWait {
            let gauge = try Gauge(context: context)
            gauge.level = 100_000
            XCTAssertEqual(gauge.level, 100_000, "the value is kept as given")
            XCTAssertThrowsError(try context.save()) { error in
                let failure = (error as? ObjectValidationError)?.allErrors.first
                XCTAssertEqual(failure?.code, .wrongType)
                XCTAssertEqual(failure?.key, "level")
                XCTAssertTrue(failure?.message.contains("Integer 16") ?? false, failure?.message ?? "")
            }
            gauge.level = 12
            try context.save()
        }
    }
}

extension ValidationTests {
    func testPerPropertyValidationHookNamesTheKey() throws {
        let context = try TestStack.context()
        try context.performAndWait {
            let tag = try Tag(context: context)
            tag.name = "Swift"
            XCTAssertThrowsError(try context.save()) { error in
                let failure = (error as? ObjectValidationError)?.allErrors.first
                XCTAssertEqual(failure?.code, .custom)
                XCTAssertEqual(failure?.key, "name")
                XCTAssertTrue(failure?.underlyingError is BlogRuleError)
            }
            tag.name = "swift"
            try context.save()
        }
    }
}

extension ValidationTests {
    func testNaNFailsRangeRules() throws {
        let model = try ManagedObjectModel {
            EntityDescription("Reading") { .attribute("value", .double, rules: .range(0.0...1.0)) }
        }
        let context = try TestStack.context(model)
        try context.performAndWait {
            let reading = try context.insertNewObject(forEntityName: "Reading")
            try reading.setValue(Double.nan, forKey: "value")
            XCTAssertThrowsError(try context.save()) { error in
                XCTAssertEqual(Set((error as? ObjectValidationError)?.allErrors.map(\.code) ?? []), [.tooSmall, .tooLarge])
            }
        }
    }
}

extension ValidationTests {
    /// A saved object that is changed is checked as a new one is: a value of its attribute's own
    /// type passes as it is (the label), an integer an Integer 16 attribute can hold passes, and
    /// one it cannot hold is refused.
    func testUpdatedObjectsAreCheckedForValuesTheirTypesDoNotTake() throws {
        final class Gauge: ManagedObject {
            @Attribute var level: Int
            @Attribute var label: String
        }
        let model = try ManagedObjectModel {
            EntityDescription("Gauge", class: Gauge.self) {
                .attribute("level", .integer16, optional: false, defaultValue: 0)
                .attribute("label", .string, optional: false, defaultValue: "")
            }
        }
        let context = try TestStack.context(model)
        try context.performAndWait {
            let gauge = try Gauge(context: context)
            gauge.level = 12
            gauge.label = "boiler"
            try context.save()

            gauge.level = 100_000
            gauge.label = "furnace"
            XCTAssertThrowsError(try context.save()) { error in
                let failures = (error as? ObjectValidationError)?.allErrors ?? []
                XCTAssertEqual(failures.map(\.code), [.wrongType])
                XCTAssertEqual(failures.map(\.key), ["level"])
            }
            gauge.level = 13
            try context.save()
            XCTAssertEqual(gauge.label, "furnace")
        }
    }
}
