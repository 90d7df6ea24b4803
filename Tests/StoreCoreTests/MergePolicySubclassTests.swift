import Foundation
import StoreCore
import StoreTestSupport
import StowageTestKit
import XCTest

/// A merge policy subclass decides conflicts itself, then hands the rest to `super`; a save reaches
/// every override through the funnel, `resolve(mergeConflicts:in:)`, as Core Data does.
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

    /// A policy ported from Core Data that overrides only the funnel: it sees every list of
    /// conflicts a save meets, then lets `super` resolve them.
    final class FunnelOnly: MergePolicy, @unchecked Sendable {
        var seen: [String] = []
        override func resolve(mergeConflicts conflicts: [Any], in context: ManagedObjectContext) throws {
            seen += conflicts.map { $0 is MergeConflict ? "locking" : $0 is ConstraintConflict ? "constraint" : "other" }
            try super.resolve(mergeConflicts: conflicts, in: context)
        }
    }

    /// Refuses every conflict in the funnel, with its own error.
    final class FunnelRefuses: MergePolicy, @unchecked Sendable {
        struct Refused: Error {}
        override func resolve(mergeConflicts conflicts: [Any], in context: ManagedObjectContext) throws { throw Refused() }
    }

    /// Overrides only the optimistic-locking method: reached through the funnel.
    final class LockingOnly: MergePolicy, @unchecked Sendable {
        var seen: [MergeConflict] = []
        override func resolve(optimisticLockingConflicts conflicts: [MergeConflict], in context: ManagedObjectContext) throws {
            seen += conflicts
            try super.resolve(optimisticLockingConflicts: conflicts, in: context)
        }
    }

    /// Saves quake "a" at magnitude 5, then has two contexts change it: `first` saves magnitude
    /// 6 after `second` has read it; returns `second`, whose change (depth 30) conflicts.
    private func conflictingContexts(_ container: PersistentContainer) throws -> ManagedObjectContext {
        let setup = container.newBackgroundContext()
        try setup.performAndWait {
            try insertQuakes(setup, [("a", 5)])
            try setup.save()
        }
        let first = container.newBackgroundContext(), second = container.newBackgroundContext()
        let request = FetchRequest<ManagedObject>(entityName: "Quake")
        try second.performAndWait {
            for quake in try second.fetch(request) { try quake.setValue(Int32(30), forKey: "depth") }
        }
        try first.performAndWait {
            for quake in try first.fetch(request) { try quake.setValue(6.0, forKey: "magnitude") }
            try first.save()
        }
        return second
    }

    func testASaveCallsTheFunnelForOptimisticLockingConflicts() throws {
        let container = try TestStack.container(QuakeModel.make())
        let second = try conflictingContexts(container)
        let policy = FunnelOnly(merge: .mergeByPropertyObjectTrump)
        try second.performAndWait {
            second.mergePolicy = policy
            try second.save()
        }
        XCTAssertEqual(policy.seen, ["locking"], "the overridden funnel saw the conflict")
        let reader = container.newBackgroundContext()
        try reader.performAndWait {
            let quake = try XCTUnwrap(try reader.fetch(FetchRequest<ManagedObject>(entityName: "Quake")).first)
            XCTAssertEqual(try quake.value(forKey: "magnitude") as? Double, 6, "super merged property by property")
            XCTAssertEqual(try quake.value(forKey: "depth") as? Int64, 30, "and kept this context's change")
        }
    }

    func testASaveCallsTheFunnelForConstraintConflicts() throws {
        let container = try TestStack.container(QuakeModel.make())
        let context = container.newBackgroundContext()
        let policy = FunnelOnly(merge: .mergeByPropertyObjectTrump)
        try context.performAndWait {
            try insertQuakes(context, [("a", 5)])
            try context.save()
            context.mergePolicy = policy
            try insertQuakes(context, [("a", 7), ("b", 1)])
            try context.save()
            context.reset()
            XCTAssertEqual(try magnitudes(context), ["a": 7, "b": 1])
        }
        XCTAssertEqual(policy.seen, ["constraint"])
    }

    func testAFunnelThatThrowsRefusesEitherKindOfConflict() throws {
        let container = try TestStack.container(QuakeModel.make())
        let second = try conflictingContexts(container)
        try second.performAndWait {
            second.mergePolicy = FunnelRefuses(merge: .mergeByPropertyObjectTrump)
            XCTAssertThrowsError(try second.save()) { XCTAssertTrue($0 is FunnelRefuses.Refused, "\($0)") }
            XCTAssertTrue(second.hasChanges, "the context keeps its changes")
        }
        let importer = container.newBackgroundContext()
        try importer.performAndWait {
            importer.mergePolicy = FunnelRefuses(merge: .mergeByPropertyObjectTrump)
            try insertQuakes(importer, [("a", 9)])
            XCTAssertThrowsError(try importer.save()) { XCTAssertTrue($0 is FunnelRefuses.Refused, "\($0)") }
        }
    }

    func testAnOverrideOfTheLockingMethodAloneIsReachedThroughTheFunnel() throws {
        let container = try TestStack.container(QuakeModel.make())
        let second = try conflictingContexts(container)
        let policy = LockingOnly(merge: .mergeByPropertyStoreTrump)
        try second.performAndWait {
            second.mergePolicy = policy
            try second.save()
        }
        XCTAssertEqual(policy.seen.count, 1)
        XCTAssertEqual(policy.seen.first?.objectID.entityName, "Quake")
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
