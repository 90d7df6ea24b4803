import Foundation
import StoreCore
import StoreTestSupport
import StowageTestKit
import XCTest

/// A merge policy subclass decides constraint conflicts itself, then hands the rest to `super`.
final class MergePolicySubclassTests: XCTestCase {
    /// Keeps the higher magnitude of a new quake and the stored one; otherwise object-trump.
    final class KeepStrongest: MergePolicy, @unchecked Sendable {
        var seen: [ConstraintConflict] = []
        override func resolve(constraintConflicts conflicts: [ConstraintConflict], in context: ManagedObjectContext) throws {
            seen += conflicts
            for conflict in conflicts {
                guard let stored = conflict.databaseSnapshot?["magnitude"].numericValue else { continue }
                for id in conflict.conflictingObjectIDs {
                    let object = try context.object(with: id)
                    let mine = try object.value(forKey: "magnitude") as? Double ?? 0
                    if stored > mine { try object.setValue(stored, forKey: "magnitude") }
                }
            }
            try super.resolve(constraintConflicts: conflicts, in: context)
        }
    }

    /// Refuses every constraint conflict with its own error.
    final class Refuse: MergePolicy, @unchecked Sendable {
        struct Refused: Error {}
        override func resolve(constraintConflicts conflicts: [ConstraintConflict], in context: ManagedObjectContext) throws {
            throw Refused()
        }
    }

    private func insertQuakes(_ context: ManagedObjectContext, _ rows: [(String, Double)]) throws {
        for (code, magnitude) in rows {
            let quake = try context.insertNewObject(forEntityName: "Quake")
            try quake.setValue(code, forKey: "code")
            try quake.setValue(magnitude, forKey: "magnitude")
        }
    }

    private func magnitudes(_ context: ManagedObjectContext) throws -> [String: Double] {
        var request = FetchRequest<FetchedDictionary>(entityName: "Quake")
        request.propertiesToFetch = ["code", "magnitude"]
        return Dictionary(uniqueKeysWithValues: try context.fetch(request).compactMap { row in
            row.value("code", as: String.self).map { ($0, row.value("magnitude", as: Double.self) ?? -1) }
        })
    }

    func testASubclassDecidesThenCallsSuper() throws {
        let container = try TestStack.container(QuakeModel.make())
        let context = container.newBackgroundContext()
        let policy = KeepStrongest(merge: .mergeByPropertyObjectTrump)
        try context.performAndWait {
            try insertQuakes(context, [("a", 5), ("b", 2)])
            try context.save()
            context.mergePolicy = policy
            try insertQuakes(context, [("a", 3), ("b", 4), ("c", 1)])
            try context.save()
            context.reset()
            XCTAssertEqual(try magnitudes(context), ["a": 5, "b": 4, "c": 1], "the stronger magnitude stays; c is new")
        }
        XCTAssertEqual(policy.seen.map { $0.constraintValues["code"] }, [.string("a"), .string("b")])
        XCTAssertNotEqual(policy, MergePolicy.mergeByPropertyObjectTrump, "a subclass is its own policy")
        XCTAssertEqual(MergePolicy(merge: .rollback), MergePolicy.rollback)
    }

    func testASubclassThatThrowsRefusesTheSaveAndChangesNothing() throws {
        let container = try TestStack.container(QuakeModel.make())
        let context = container.newBackgroundContext()
        try context.performAndWait {
            try insertQuakes(context, [("a", 5)])
            try context.save()
            context.mergePolicy = Refuse(merge: .mergeByPropertyObjectTrump)
            try insertQuakes(context, [("a", 9), ("d", 1)])
            XCTAssertThrowsError(try context.save()) { XCTAssertTrue($0 is Refuse.Refused, "\($0)") }
            XCTAssertEqual(context.insertedObjects.count, 2, "the context keeps its changes")
            let reader = container.newBackgroundContext()
            try reader.performAndWait { XCTAssertEqual(try magnitudes(reader), ["a": 5]) }
        }
    }
}
