import Foundation
import Stowage
import XCTest

/// docs/saving-and-merging.md: importing records again under a merge policy, and a policy of
/// your own — on quakes unique by their code.
final class DocsSavingAndMergingExamples: XCTestCase {
    struct Record: Sendable {
        let code: String
        let magnitude: Double
    }

    /// A SQLite store of quakes unique by `code`, holding "a" (5.0) and "b" (2.0).
    private func quakes(in directory: URL) throws -> PersistentContainer {
        let model = try ManagedObjectModel {
            EntityDescription("Quake", uniquenessConstraints: [["code"]]) {
                .attribute("code", .string)
                .attribute("magnitude", .double, optional: false, defaultValue: 0)
            }
        }
        let container = try ExampleStack.container(PersistentStoreDescription(url: directory.appendingPathComponent("Quakes.sqlite")), model: model)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            for (code, magnitude) in [("a", 5.0), ("b", 2.0)] {
                let quake = try context.insertNewObject(forEntityName: "Quake")
                try quake.setValue(code, forKey: "code")
                try quake.setValue(magnitude, forKey: "magnitude")
            }
            try context.save()
        }
        return container
    }

    /// Every stored quake as `code magnitude`, by code.
    private func stored(_ container: PersistentContainer) throws -> [String] {
        let reader = container.newBackgroundContext()
        return try reader.performAndWait {
            var byCode = FetchRequest<ManagedObject>(entityName: "Quake")
            byCode.sortDescriptors = [.ascending("code")]
            return try reader.fetch(byCode).map { "\(try $0.value(forKey: "code") as? String ?? "") \(try $0.value(forKey: "magnitude") as? Double ?? 0)" }
        }
    }

    func testImportAndDedupe() async throws {
        let directory = try ExampleStack.makeDirectory()
        defer { ExampleStack.removeDirectory(directory) }
        let container = try quakes(in: directory)
        let records = [Record(code: "a", magnitude: 3.0), Record(code: "c", magnitude: 4.0), Record(code: "c", magnitude: 4.5)]

        let context = container.newBackgroundContext()
        context.mergePolicy = .mergeByPropertyObjectTrump
        try await context.perform {
            for record in records {                      // some already stored, some twice in `records`
                let quake = try context.insertNewObject(forEntityName: "Quake")
                try quake.setValue(record.code, forKey: "code")
                try quake.setValue(record.magnitude, forKey: "magnitude")
            }
            try context.save()                           // one object per code; stored ones updated
        }

        XCTAssertEqual(try stored(container), ["a 3.0", "b 2.0", "c 4.5"])
        ExampleStack.close(container)
    }

    func testAPolicyOfYourOwn() throws {
        let directory = try ExampleStack.makeDirectory()
        defer { ExampleStack.removeDirectory(directory) }
        let container = try quakes(in: directory)
        let context = container.newBackgroundContext()

        final class KeepStrongest: MergePolicy, @unchecked Sendable {
            override func resolve(constraintConflicts conflicts: [ConstraintConflict], in context: ManagedObjectContext) throws {
                for conflict in conflicts {
                    guard let stored = conflict.databaseSnapshot?["magnitude"].numericValue else { continue }
                    for id in conflict.conflictingObjectIDs {
                        let quake = try context.object(with: id)
                        if stored > (try quake.value(forKey: "magnitude") as? Double ?? 0) { try quake.setValue(stored, forKey: "magnitude") }
                    }
                }
                try super.resolve(constraintConflicts: conflicts, in: context)
            }
        }
        context.mergePolicy = KeepStrongest(merge: .mergeByPropertyObjectTrump)

        try context.performAndWait {
            for (code, magnitude) in [("a", 3.0), ("b", 4.0)] {
                let quake = try context.insertNewObject(forEntityName: "Quake")
                try quake.setValue(code, forKey: "code")
                try quake.setValue(magnitude, forKey: "magnitude")
            }
            try context.save()
        }
        XCTAssertEqual(try stored(container), ["a 5.0", "b 4.0"], "the stronger magnitude is kept, stored or new")
        ExampleStack.close(container)
    }
}
