import Foundation
import StoreCore
import XCTest

/// Batch insert, update and delete requests on every store type, with file-backed stores closed
/// and opened again before their effects are read back.
struct BatchRequestSuite {
    let kit: StoreTestKit

    /// Runs one check of the suite on the kit's store, failures naming the store and the check.
    private func forEachBackend(_ name: String = #function, _ body: (StoreTestKit) throws -> Void) {
        kit.check(name) { try body(kit) }
    }

    private func quakeStack(_ backend: StoreTestKit) throws -> StoreTestStack {
        try backend.makeStack(model: QuakeModel.make(), options: [.persistentHistoryTracking: true])
    }

    /// Code → magnitude of every stored quake, read in a fresh context.
    private func magnitudes(_ stack: StoreTestStack) throws -> [String: Double] {
        let context = stack.newContext()
        return try context.performAndWait {
            var result: [String: Double] = [:]
            for quake in try context.fetch(FetchRequest<ManagedObject>(entityName: "Quake")) {
                result[try quake.value(forKey: "code") as? String ?? "?"] = try quake.value(forKey: "magnitude") as? Double
            }
            return result
        }
    }

    private func insert(_ rows: [[String: Any]], into stack: StoreTestStack, resultType: BatchResultType = .statusOnly, policy: MergePolicy = .error) throws -> BatchResult {
        let context = stack.newContext()
        return try context.performAndWait {
            context.mergePolicy = policy
            var request = BatchInsertRequest(entityName: "Quake", objects: rows)
            request.resultType = resultType
            return try context.execute(request)
        }
    }

    // MARK: Insert

    func testBatchInsertFromDictionariesAppliesDefaultsAndReturnsEachResultType() {
        forEachBackend { backend in
            let stack = try quakeStack(backend)
            XCTAssertEqual(try insert(QuakeModel.rows(3), into: stack), .status(true), "\(backend)")
            // A full row, then one leaving most out: the second gets defaults, not the first's values.
            let full: [String: Any] = ["code": "f1", "magnitude": 9.5, "place": "west", "time": Date(), "depth": 3]
            XCTAssertEqual(try insert([full, ["code": "c1"], ["code": "c2"]], into: stack, resultType: .count), .count(3), "\(backend)")
            let ids = try insert([["code": "i1", "magnitude": 4.5]], into: stack, resultType: .objectIDs).objectIDs ?? []
            try stack.reopen()
            let stored = try magnitudes(stack)
            XCTAssertEqual(
                stored, ["q1": 1, "q2": 2, "q3": 3, "f1": 9.5, "c1": 0, "c2": 0, "i1": 4.5],
                "\(backend): defaults fill what rows leave out")
            XCTAssertEqual(ids.count, 1, "\(backend)")
            let context = stack.newContext()
            try context.performAndWait {
                let quake = try context.existingObject(with: ids[0])
                XCTAssertEqual(try quake.value(forKey: "code") as? String, "i1", "\(backend): the returned ID names the new object")
            }
        }
    }

    func testBatchInsertFromHandlersStopsWhenTheHandlerSaysSo() {
        forEachBackend { backend in
            let stack = try quakeStack(backend)
            let context = stack.newContext()
            try context.performAndWait {
                var n = 0
                var request = BatchInsertRequest(entityName: "Quake") { (row: inout [String: Any]) in
                    n += 1
                    row = ["code": "d\(n)", "magnitude": Double(n)]
                    return n > 4
                }
                request.resultType = .count
                XCTAssertEqual(try context.execute(request), .count(4), "\(backend)")
                var m = 0
                var objects = BatchInsertRequest(entityName: "Quake") { (object: ManagedObject) in
                    m += 1
                    try? object.setValue("m\(m)", forKey: "code")
                    try? object.setValue(7.5, forKey: "magnitude")
                    return m > 2
                }
                objects.resultType = .objectIDs
                XCTAssertEqual(try context.execute(objects).objectIDs?.count, 2, "\(backend)")
            }
            try stack.reopen()
            XCTAssertEqual(try magnitudes(stack), ["d1": 1, "d2": 2, "d3": 3, "d4": 4, "m1": 7.5, "m2": 7.5], "\(backend)")
        }
    }

    func testAnInvalidRowFailsTheWholeInsertNamingTheRowAndWritesNothing() {
        forEachBackend { backend in
            let stack = try quakeStack(backend)
            let bad: [(row: [String: Any], code: ObjectValidationError.Code)] = [
                (["magnitude": 1.0], .missingValue),
                (["code": "x", "magnitude": "loud"], .wrongType),
                (["code": "x", "magnitude": 11.0], .tooLarge),
                (["code": "x", "nope": 1], .wrongType),
                // Rows giving most attributes are read by looking each one up: the same errors.
                (["code": "x", "magnitude": "loud", "place": "p"], .wrongType),
                (["code": "x", "magnitude": 1.0, "place": "p", "nope": 1], .wrongType),
                (["code": "x", "magnitude": 1.0, "place": "p", "region": 1], .wrongType),
            ]
            for (row, code) in bad {
                XCTAssertThrowsError(try insert(QuakeModel.rows(2) + [row] + QuakeModel.rows(1), into: stack), "\(backend)") { error in
                    let failure = error as? ObjectValidationError
                    XCTAssertEqual(failure?.code, code, "\(backend): \(error)")
                    XCTAssertTrue(failure?.message.contains("row 3") == true, "\(backend): \(error)")
                }
            }
            try stack.reopen()
            XCTAssertEqual(try magnitudes(stack), [:], "\(backend): nothing was written")
        }
    }

    func testUpsertUpdatesTheStoredObjectInPlaceUnderATrumpingPolicy() {
        forEachBackend { backend in
            let stack = try quakeStack(backend)
            let original = try insert([["code": "q1", "magnitude": 1.0, "place": "here"]], into: stack, resultType: .objectIDs).objectIDs ?? []
            let upserted = try insert([["code": "q1", "magnitude": 9.0], ["code": "q2", "magnitude": 2.0]], into: stack, resultType: .objectIDs, policy: .mergeByPropertyObjectTrump).objectIDs ?? []
            XCTAssertTrue(upserted.contains(original[0]), "\(backend): the upserted object keeps its ID")
            XCTAssertThrowsError(try insert([["code": "q2", "magnitude": 5.0]], into: stack, policy: .error), "\(backend)") { error in
                XCTAssertEqual((error as? ObjectValidationError)?.code, .uniquenessConstraint, "\(backend): \(error)")
            }
            XCTAssertEqual(try insert([["code": "q2", "magnitude": 6.0]], into: stack, resultType: .count, policy: .mergeByPropertyStoreTrump), .count(0),
                           "\(backend): a kept stored object is not counted")
            try stack.reopen()
            XCTAssertEqual(try magnitudes(stack), ["q1": 9, "q2": 2], "\(backend)")
            let context = stack.newContext()
            try context.performAndWait {
                let quake = try context.existingObject(with: original[0])
                XCTAssertEqual(try quake.value(forKey: "magnitude") as? Double, 9, "\(backend)")
                XCTAssertNil(try quake.value(forKey: "place"), "\(backend): an upsert writes the whole row")
            }
        }
    }

    // MARK: Update

    func testBatchUpdateSetsConstantsAndExpressionsOnTheSelectedObjects() {
        forEachBackend { backend in
            let stack = try quakeStack(backend)
            _ = try insert(QuakeModel.rows(6), into: stack)
            let context = stack.newContext()
            let before = Date()
            try context.performAndWait {
                var request = BatchUpdateRequest(entityName: "Quake", predicate: "magnitude < 3")
                request.propertiesToUpdate = [
                    "magnitude": try StoreExpression(format: "magnitude * 2"), "place": .constant(.string("doubled")),
                    "time": try StoreExpression(format: "now()"),
                ]
                request.resultType = .count
                XCTAssertEqual(try context.execute(request), .count(2), "\(backend)")
                var byID = BatchUpdateRequest(entityName: "Quake", predicate: "code == 'q6'", propertiesToUpdate: ["magnitude": .constant(.integer(1))])
                byID.resultType = .objectIDs
                XCTAssertEqual(try context.execute(byID).objectIDs?.count, 1, "\(backend)")
                var invalid = BatchUpdateRequest(entityName: "Quake", propertiesToUpdate: ["magnitude": .constant(.double(12))])
                invalid.resultType = .count
                XCTAssertThrowsError(try context.execute(invalid), "\(backend): a constant breaking a rule is refused")
            }
            try stack.reopen()
            XCTAssertEqual(try magnitudes(stack), ["q1": 2, "q2": 4, "q3": 3, "q4": 4, "q5": 5, "q6": 1], "\(backend)")
            let check = stack.newContext()
            try check.performAndWait {
                let doubled = try check.fetch(FetchRequest<ManagedObject>(entityName: "Quake", predicate: "place == 'doubled'"))
                XCTAssertEqual(doubled.count, 2, "\(backend)")
                for quake in doubled {
                    let time = try quake.value(forKey: "time") as? Date
                    XCTAssertGreaterThanOrEqual(time?.timeIntervalSince(before) ?? -1, -1, "\(backend): now() was written")
                }
            }
        }
    }

    // MARK: Delete

    func testBatchDeleteWithAFetchLimitDeletesExactlyThatManyInSortOrder() {
        forEachBackend { backend in
            let stack = try quakeStack(backend)
            _ = try insert(QuakeModel.rows(9), into: stack)
            let context = stack.newContext()
            try context.performAndWait {
                var fetch = FetchRequest<ManagedObject>(entityName: "Quake", predicate: "place == 'south'", sortDescriptors: [.descending("magnitude")])
                fetch.fetchLimit = 2
                var request = BatchDeleteRequest(fetchRequest: fetch)
                request.resultType = .count
                XCTAssertEqual(try context.execute(request), .count(2), "\(backend)")
            }
            try stack.reopen()
            XCTAssertEqual(Set(try magnitudes(stack).keys), ["q1", "q2", "q3", "q4", "q5", "q6", "q8"], "\(backend): the two largest southern quakes (q9, q7) went")
        }
    }

    func testBatchDeleteByObjectIDsReturnsTheDeletedIDs() {
        forEachBackend { backend in
            let stack = try quakeStack(backend)
            let ids = try insert(QuakeModel.rows(4), into: stack, resultType: .objectIDs).objectIDs ?? []
            let context = stack.newContext()
            try context.performAndWait {
                var request = BatchDeleteRequest(objectIDs: Array(ids.prefix(2)))
                request.resultType = .objectIDs
                XCTAssertEqual(Set(try context.execute(request).objectIDs ?? []), Set(ids.prefix(2)), "\(backend)")
            }
            try stack.reopen()
            XCTAssertEqual(try magnitudes(stack).count, 2, "\(backend)")
        }
    }

    /// A region with two quakes (one reported on) and a second region with one quake.
    private func saveRegions(_ stack: StoreTestStack) throws {
        let context = stack.newContext()
        try context.performAndWait {
            for (name, codes) in [("west", ["w1", "w2"]), ("east", ["e1"])] {
                let region = try context.insertNewObject(forEntityName: "Region")
                try region.setValue(name, forKey: "name")
                for code in codes {
                    let quake = try context.insertNewObject(forEntityName: "Quake")
                    try quake.setValue(code, forKey: "code")
                    try quake.setValue(region, forKey: "region")
                    if code == "w2" {
                        let report = try context.insertNewObject(forEntityName: "Report")
                        try report.setValue("felt it", forKey: "text")
                        try report.setValue(quake, forKey: "quake")
                    }
                }
            }
            try context.save()
        }
    }

    private func count(_ entity: String, _ stack: StoreTestStack, _ predicate: StorePredicate? = nil) throws -> Int {
        let context = stack.newContext()
        return try context.performAndWait { try context.count(for: FetchRequest<ManagedObject>(entityName: entity, predicate: predicate)) }
    }

    func testBatchDeleteCascadesAndIsRefusedWholeByADenyRule() {
        forEachBackend { backend in
            let stack = try quakeStack(backend)
            try saveRegions(stack)
            let context = stack.newContext()
            try context.performAndWait {
                // West's cascade reaches w2, whose report denies its deletion: nothing is deleted.
                let west = BatchDeleteRequest(fetchRequest: FetchRequest<ManagedObject>(entityName: "Region", predicate: "name == 'west'"))
                XCTAssertThrowsError(try context.execute(west), "\(backend)") { error in
                    XCTAssertEqual((error as? ObjectValidationError)?.code, .deleteDenied, "\(backend): \(error)")
                }
                var east = BatchDeleteRequest(fetchRequest: FetchRequest<ManagedObject>(entityName: "Region", predicate: "name == 'east'"))
                east.resultType = .count
                XCTAssertEqual(try context.execute(east), .count(2), "\(backend): the region and its quake")
            }
            try stack.reopen()
            XCTAssertEqual(try count("Region", stack), 1, "\(backend)")
            XCTAssertEqual(Set(try magnitudes(stack).keys), ["w1", "w2"], "\(backend)")
            XCTAssertEqual(try count("Report", stack), 1, "\(backend)")
        }
    }

    func testBatchDeleteNullifiesInversesOfTheObjectsLeft() {
        forEachBackend { backend in
            let stack = try quakeStack(backend)
            try saveRegions(stack)
            let context = stack.newContext()
            try context.performAndWait {
                // Deleting the report frees w2; deleting w1 leaves west holding only w2.
                try context.execute(BatchDeleteRequest(fetchRequest: FetchRequest<ManagedObject>(entityName: "Report")))
                try context.execute(BatchDeleteRequest(fetchRequest: FetchRequest<ManagedObject>(entityName: "Quake", predicate: "code == 'w1'")))
            }
            try stack.reopen()
            let check = stack.newContext()
            try check.performAndWait {
                let west = try check.fetch(FetchRequest<ManagedObject>(entityName: "Region", predicate: "name == 'west'")).first
                let quakes = try west?.value(forKey: "quakes") as? Set<ManagedObject> ?? []
                XCTAssertEqual(try quakes.map { try $0.value(forKey: "code") as? String }, ["w2"], "\(backend)")
                let w2 = try check.fetch(FetchRequest<ManagedObject>(entityName: "Quake", predicate: "code == 'w2'")).first
                XCTAssertEqual((try w2?.value(forKey: "reports") as? Set<ManagedObject>)?.count, 0, "\(backend)")
            }
        }
    }

    func testMergingABatchDeleteRemovesTheObjectsFromALiveContext() {
        forEachBackend { backend in
            let stack = try quakeStack(backend)
            _ = try insert(QuakeModel.rows(4), into: stack)
            let live = stack.newContext()
            let shown = try live.performAndWait { try live.fetch(FetchRequest<ManagedObject>(entityName: "Quake")) }
            XCTAssertEqual(shown.count, 4)
            let worker = stack.newContext()
            let deleted = try worker.performAndWait {
                var request = BatchDeleteRequest(fetchRequest: FetchRequest<ManagedObject>(entityName: "Quake", predicate: "magnitude < 3"))
                request.resultType = .objectIDs
                return try worker.execute(request).objectIDs ?? []
            }
            XCTAssertEqual(deleted.count, 2, "\(backend)")
            ManagedObjectContext.mergeChanges(fromRemoteContextSave: [.deletedObjectIDs: deleted], into: [live])
            try live.performAndWait {
                XCTAssertTrue(live.registeredObjects.allSatisfy { !deleted.contains($0.objectID) }, "\(backend)")
                XCTAssertEqual(try live.fetch(FetchRequest<ManagedObject>(entityName: "Quake")).count, 2, "\(backend)")
            }
        }
    }
}

extension BatchRequestSuite {
    /// Found by the benchmark: objects fetched as faults and deleted without being read carried
    /// version 0 into the save, which then failed with a merge conflict.
    func testDeletingFetchedFaultsWithoutReadingThemSaves() {
        forEachBackend { backend in
            // No relationships: nothing else reads the objects before the save.
            let model = try ManagedObjectModel { EntityDescription("Note") { .attribute("text", .string) } }
            let stack = try backend.makeStack(model: model)
            let writer = stack.newContext()
            let ids = try writer.performAndWait {
                var request = BatchInsertRequest(entityName: "Note", objects: [["text": "a"], ["text": "b"]])
                request.resultType = .objectIDs
                return try writer.execute(request).objectIDs ?? []
            }
            let context = stack.newContext()
            try context.performAndWait {
                for id in ids { context.delete(try context.object(with: id)) }  // faults, never read
                try context.save()
                XCTAssertEqual(try context.count(for: FetchRequest<ManagedObject>(entityName: "Note")), 0, "\(backend)")
            }
        }
    }

    func run() {
        testBatchInsertFromDictionariesAppliesDefaultsAndReturnsEachResultType()
        testBatchInsertFromHandlersStopsWhenTheHandlerSaysSo()
        testAnInvalidRowFailsTheWholeInsertNamingTheRowAndWritesNothing()
        testUpsertUpdatesTheStoredObjectInPlaceUnderATrumpingPolicy()
        testBatchUpdateSetsConstantsAndExpressionsOnTheSelectedObjects()
        testBatchDeleteWithAFetchLimitDeletesExactlyThatManyInSortOrder()
        testBatchDeleteByObjectIDsReturnsTheDeletedIDs()
        testBatchDeleteCascadesAndIsRefusedWholeByADenyRule()
        testBatchDeleteNullifiesInversesOfTheObjectsLeft()
        testMergingABatchDeleteRemovesTheObjectsFromALiveContext()
        testDeletingFetchedFaultsWithoutReadingThemSaves()
    }
}
