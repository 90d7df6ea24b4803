import Foundation
import StoreCore
import StoreTestSupport
import StowageTestKit
import XCTest

/// A ``ConstraintConflict``'s values, whether a save found it or a program made one: read by
/// key, every key given kept.
final class ConstraintConflictValuesTests: XCTestCase {
    func testAConflictMadeByAProgramKeepsEveryValueItWasGiven() {
        let conflict = ConstraintConflict(
            entity: "Quake", constraint: ["code"], constraintValues: ["code": .string("a"), "note": .integer(1)],
            databaseObjectID: nil, databaseSnapshot: nil, conflictingObjectIDs: [])
        XCTAssertEqual(conflict.constraintValues, ["code": .string("a"), "note": .integer(1)])
        XCTAssertEqual(conflict.description, #"Quake (code = "a"): 0 new object(s)"#)
    }

    func testAConflictASaveFoundReadsItsValuesByKey() throws {
        let container = try TestStack.container(QuakeModel.make())
        let context = container.newBackgroundContext()
        let policy = Recording(merge: .mergeByPropertyObjectTrump)
        try context.performAndWait {
            for code in ["a", "b"] {
                let quake = try context.insertNewObject(forEntityName: "Quake")
                try quake.setValue(code, forKey: "code")
            }
            try context.save()
            context.mergePolicy = policy
            for code in ["b", "c", "c"] {
                let quake = try context.insertNewObject(forEntityName: "Quake")
                try quake.setValue(code, forKey: "code")
            }
            try context.save()
        }
        let byCode = Dictionary(uniqueKeysWithValues: policy.seen.map { ($0.constraintValues["code"], $0) })
        XCTAssertEqual(Set(byCode.keys), [.string("b"), .string("c")])
        XCTAssertEqual(byCode[.string("b")]?.constraintValues, ["code": .string("b")])
        XCTAssertNotNil(byCode[.string("b")]?.databaseObjectID, "b is stored")
        XCTAssertEqual(byCode[.string("b")]?.conflictingObjectIDs.count, 1)
        XCTAssertNil(byCode[.string("c")]?.databaseObjectID, "only new objects hold c")
        XCTAssertEqual(byCode[.string("c")]?.conflictingObjectIDs.count, 2)
    }

    /// Notes the conflicts it is given, then resolves them as its merge type does.
    final class Recording: MergePolicy, @unchecked Sendable {
        // @unchecked: called on the saving context's queue only.
        var seen: [ConstraintConflict] = []
        override func resolve(constraintConflicts conflicts: [ConstraintConflict], in context: ManagedObjectContext) throws {
            seen += conflicts
            try super.resolve(constraintConflicts: conflicts, in: context)
        }
    }
}
