import Foundation
import SQLiteBackend
import StoreCore
import StoreTestSupport
import XCTest

/// Load on one SQLite store: eight private contexts each save 1,000 entries in 100 saves, every
/// save also adding one to a shared counter, while the view context keeps fetching. Conflicts on
/// the counter are refused as merge conflicts (the default policy) and the increment retried, so
/// the final counts are exact: no entry lost or doubled, no increment lost.
final class SQLiteLoadTests: XCTestCase {
    private static let contexts = 8
    private static let saves = 100
    private static let entriesPerSave = 10

    func testEightContextsSavingWhileTheViewContextFetchesLoseNothing() throws {
        let directory = try TemporaryDirectory()
        SQLiteStore.register()
        let container = PersistentContainer(name: "Load", managedObjectModel: try SaveLoopStore.makeModel())
        container.persistentStoreDescriptions = [PersistentStoreDescription(url: directory.file("Load.sqlite"))]
        try container.loadPersistentStores()
        let counterID = try container.viewContext.performAndWait { () throws -> ManagedObjectID in
            let counter = try container.viewContext.insertNewObject(forEntityName: "Counter")
            try container.viewContext.save()
            return counter.objectID
        }

        let failures = LockedBox<[String]>([])
        let conflicts = LockedBox(0)
        let savers = DispatchGroup()
        for side in 0..<Self.contexts {
            savers.enter()
            DispatchQueue.global().async {
                defer { savers.leave() }
                let context = container.newBackgroundContext()
                context.performAndWait {
                    do {
                        for save in 0..<Self.saves {
                            for n in 0..<Self.entriesPerSave {
                                let entry = try context.insertNewObject(forEntityName: "Entry")
                                try entry.setValue(Int64(side * 100_000 + save * 100 + n), forKey: "number")
                            }
                            let counter = try context.existingObject(with: counterID)
                            while true {
                                try counter.setValue((try counter.value(forKey: "value") as? Int64 ?? 0) + 1, forKey: "value")
                                do {
                                    try context.save()
                                    break
                                } catch is MergeConflictError {
                                    conflicts.mutate { $0 += 1 }
                                    context.refresh(counter, mergeChanges: false)
                                }
                            }
                        }
                    } catch {
                        failures.mutate { $0.append("context \(side): \(error)") }
                    }
                }
            }
        }
        // The view context (main queue, this thread) fetches while the others save; counts only grow.
        var fetches = 0, last = 0
        while savers.wait(timeout: .now() + .milliseconds(5)) == .timedOut {
            try container.viewContext.performAndWait {
                let count = try container.viewContext.count(for: FetchRequest<ManagedObject>(entityName: "Entry"))
                XCTAssertGreaterThanOrEqual(count, last, "the entry count went down")
                last = count
                fetches += 1
            }
        }

        XCTAssertEqual(failures.value, [])
        let check = container.newBackgroundContext()
        try check.performAndWait {
            let numbers = try check.fetch(FetchRequest<ManagedObject>(entityName: "Entry")).map { try $0.value(forKey: "number") as? Int64 ?? -1 }
            XCTAssertEqual(numbers.count, Self.contexts * Self.saves * Self.entriesPerSave, "every entry saved once")
            XCTAssertEqual(Set(numbers).count, numbers.count, "no entry saved twice")
            let counter = try check.existingObject(with: counterID)
            XCTAssertEqual(try counter.value(forKey: "value") as? Int64, Int64(Self.contexts * Self.saves), "no increment lost")
        }
        XCTAssertGreaterThan(fetches, 0, "the view context fetched during the saves")
        print("load: \(Self.contexts) contexts × \(Self.saves) saves, \(conflicts.value) merge conflicts retried, \(fetches) view-context fetches")
    }
}
