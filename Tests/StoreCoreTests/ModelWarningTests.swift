import Foundation
import Logging
@testable import StoreCore
import StoreTestSupport
import XCTest

/// Flaws Core Data loads a model with, which load here too with a warning in
/// `ManagedObjectModel.warnings` (and the log) instead of refusing the model.
final class ModelWarningTests: XCTestCase {
    private func codes(_ model: ManagedObjectModel) -> [String] {
        model.warnings.map { "\($0.code) \($0.entity ?? "").\($0.key ?? "")" }
    }

    func testAConsistentModelHasNoWarnings() throws {
        XCTAssertEqual(try BlogModel.make().warnings.map(\.description), [])
    }

    func testAnInverseThatDoesNotPointBackIsKeptWithAWarning() throws {
        // Two relationships name B.a as their inverse; B.a names only the first back.
        let model = try ManagedObjectModel {
            EntityDescription("A") {
                .toOne("b", destination: "B", inverse: "a")
                .toOne("other", destination: "B", inverse: "a")
            }
            EntityDescription("B") { .toOne("a", destination: "A", inverse: "b") }
        }
        XCTAssertEqual(codes(model), ["inverseMismatch A.other"])
        XCTAssertTrue(model.warnings[0].message.contains("B.a's inverse is b"), model.warnings[0].message)
        let other = try XCTUnwrap(model.entity(named: "A").relationshipsByName["other"])
        XCTAssertEqual(other.inverseRelationship?.name, "a", "kept, as Core Data keeps each side's inverse")

        let context = try TestStack.context(model)
        try context.performAndWait {
            let a = try context.insertNewObject(forEntityName: "A")
            let b = try context.insertNewObject(forEntityName: "B")
            try a.setValue(b, forKey: "other")
            XCTAssertEqual(try b.value(forKey: "a") as? ManagedObject, a, "setting this side sets the inverse it names")
            try context.save()
        }
    }

    func testAManyToManyWhoseInverseDoesNotPointBackIsLinkedOneWay() throws {
        let model = try ManagedObjectModel {
            EntityDescription("Post") {
                .toMany("tags", destination: "Tag", inverse: "posts")
                .toMany("drafts", destination: "Tag", inverse: "posts")
            }
            EntityDescription("Tag") { .toMany("posts", destination: "Post", inverse: "tags") }
        }
        XCTAssertEqual(codes(model), ["inverseMismatch Post.drafts"])
        XCTAssertNil(try model.entity(named: "Post").relationshipsByName["drafts"]?.inverseRelationship)
        XCTAssertEqual(try model.entity(named: "Post").relationshipsByName["tags"]?.inverseRelationship?.name, "posts")
        let context = try TestStack.context(model)
        try context.performAndWait {
            let post = try context.insertNewObject(forEntityName: "Post")
            let tag = try context.insertNewObject(forEntityName: "Tag")
            try post.setValue(Set([tag]), forKey: "drafts")
            XCTAssertEqual((try tag.value(forKey: "posts") as? Set<ManagedObject>)?.count, 0, "linked one way")
            try context.save()
        }
    }

    func testAMissingInverseOrOneLeadingElsewhereIsLinkedOneWay() throws {
        let model = try ManagedObjectModel {
            EntityDescription("A") {
                .toOne("b", destination: "B", inverse: "nothing")
                .toMany("cs", destination: "C", inverse: "b")
            }
            EntityDescription("B") { .toMany("cs", destination: "C", inverse: "b") }
            EntityDescription("C") { .toOne("b", destination: "B", inverse: "cs") }
        }
        XCTAssertEqual(Set(codes(model)), ["missingInverse A.b", "inverseMismatch A.cs"])
        XCTAssertTrue(model.warnings.contains { $0.message.contains("leads to B, not A") }, "\(model.warnings)")
        let a = try model.entity(named: "A")
        XCTAssertNil(a.relationshipsByName["b"]?.inverseRelationship)
        XCTAssertNil(a.relationshipsByName["cs"]?.inverseRelationship)
        let context = try TestStack.context(model)
        try context.performAndWait {
            let owner = try context.insertNewObject(forEntityName: "A")
            let b = try context.insertNewObject(forEntityName: "B")
            let c = try context.insertNewObject(forEntityName: "C")
            try owner.setValue(b, forKey: "b")
            try owner.setValue(Set([c]), forKey: "cs")
            XCTAssertNil(try c.value(forKey: "b"), "a C's b stays a B's")
            try context.save()
        }
    }

    func testCountsAndRulesCoreDataKeepsAsGivenAreWarnings() throws {
        let model = try ManagedObjectModel {
            EntityDescription("A") {
                .toMany("bs", destination: "B", inverse: "a", minCount: 3, maxCount: 2)
            }
            EntityDescription("B") { .toOne("a", destination: "A", inverse: "bs") }
            EntityDescription("C") { .attribute("code", .string, rules: [.pattern("(["), .minimumLength(-1)]) }
        }
        XCTAssertEqual(Set(codes(model)), ["invalidValidationRule C.code", "invalidRelationshipCount A.bs"])
        XCTAssertEqual(model.warnings.count, 3)
        let context = try TestStack.context(model)
        try context.performAndWait {
            let c = try context.insertNewObject(forEntityName: "C")
            try c.setValue("any text", forKey: "code")
            try context.save()   // the pattern that cannot be read is not checked, a negative minimum always holds
            _ = try context.insertNewObject(forEntityName: "A")
            XCTAssertThrowsError(try context.save(), "the counts are validated as given")
        }
        XCTAssertThrowsError(try ManagedObjectModel {
            EntityDescription("A") { .toMany("bs", destination: "B", inverse: "a", minCount: -1) }
            EntityDescription("B") { .toOne("a", destination: "A", inverse: "bs") }
        }) { XCTAssertEqual(($0 as? ModelError)?.code, .invalidRelationshipCount, "negative counts stay refused") }
    }

    func testNowOnADoubleIsDerivedAndOnAStringIsAWarning() throws {
        let model = try ManagedObjectModel {
            EntityDescription("Event") {
                .attribute("at", .date, derivation: "now()")
                .attribute("seconds", .double, derivation: "now()")
                .attribute("single", .float, derivation: "now()")
                .attribute("label", .string, derivation: "now()")
            }
        }
        let event = try model.entity(named: "Event")
        XCTAssertEqual(event.attributesByName["seconds"]?.derivation, .now)
        XCTAssertEqual(event.attributesByName["single"]?.derivation, .now)
        XCTAssertNil(event.attributesByName["label"]?.derivation, "stored as given")
        XCTAssertEqual(codes(model), ["invalidDerivation Event.label"])
        XCTAssertTrue(model.warnings[0].message.contains("String attribute cannot hold"), model.warnings[0].message)
        let date = Date(timeIntervalSinceReferenceDate: 750_000_000.5)
        XCTAssertEqual(AttributeDerivation.nowValue(at: date, as: .double), .double(750_000_000.5))
        XCTAssertEqual(AttributeDerivation.nowValue(at: date, as: .date), .date(date))
    }

    func testWarningsAreLogged() throws {
        let model = try ManagedObjectModel {
            EntityDescription("A") { .toOne("b", destination: "B", inverse: "missing") }
            EntityDescription("B") {}
        }
        let recorded = RecordingLogHandler.Lines()
        let logger = Logger(label: "stowage.model") { _ in RecordingLogHandler(lines: recorded) }
        ModelWarningLog.log(model.warnings, of: model.entities.map(\.name), to: logger)
        XCTAssertEqual(recorded.all, ["warning: model of A, B: A.b: inverse 'missing' not found on B; the relationship is linked one way, as one without an inverse"])
    }
}
