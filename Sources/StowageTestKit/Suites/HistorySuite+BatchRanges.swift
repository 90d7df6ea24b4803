import Foundation
import StoreCore
import XCTest

/// The history of batch requests whose objects' keys have gaps: every object changed once (in
/// the order the store keeps — key order in the SQL stores), with IDs no later change reuses — whether a store records a change per object or
/// (as the SQL stores do) per run of consecutive keys — fetched whole, per object, per change ID,
/// per entity, after a partial history deletion, and with tombstones per object.
extension HistorySuite {
    /// `Reading` (with sub-entity `Alarm`, sharing its keys in the SQL stores) preserves nothing
    /// on deletion; `Note` preserves `text`.
    static func rangeModel() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Reading") {
                .attribute("value", .integer64, optional: false, defaultValue: .integer(0))
                .attribute("tag", .string)
            }
            EntityDescription("Alarm", parent: "Reading") {
                .attribute("level", .integer64, optional: false, defaultValue: .integer(0))
            }
            EntityDescription("Note") {
                .attribute("text", .string, preservesValueInHistoryOnDeletion: true)
                .attribute("rank", .integer64, optional: false, defaultValue: .integer(0))
            }
        }
    }

    private func stack(_ backend: StoreTestKit, model: ManagedObjectModel) throws -> StoreTestStack {
        try backend.makeStack(model: model, options: [.persistentHistoryTracking: true])
    }

    private static func compare(_ key: String, _ op: StoreComparison.Operator, _ value: StoreValue) -> StorePredicate {
        .comparison(StoreComparison(.keyPath(key), op, .constant(value)))
    }

    /// Readings 1–10, alarms 11–14, readings 15–20 (three batch inserts, so the alarms' keys sit
    /// between the readings'); the objects by value.
    private func insertReadings(_ stack: StoreTestStack) throws -> [Int64: ManagedObjectID] {
        let context = stack.newContext()
        return try context.performAndWait {
            for (entity, values) in [("Reading", 1...10), ("Alarm", 11...14), ("Reading", 15...20)] {
                _ = try context.execute(BatchInsertRequest(entityName: entity, objects: values.map { ["value": Int64($0)] }))
            }
            var ids: [Int64: ManagedObjectID] = [:]
            for object in try context.fetch(FetchRequest<ManagedObject>(entityName: "Reading")) {
                guard let value = try object.value(forKey: "value") as? Int64 else { continue }
                ids[value] = object.objectID
            }
            return ids
        }
    }

    private func changes(_ stack: StoreTestStack, after token: PersistentHistoryToken? = nil, _ predicate: StorePredicate) throws -> [PersistentHistoryChange] {
        var request = PersistentHistoryChangeRequest.fetchHistory(after: token)
        request.fetchRequest = PersistentHistoryChange.fetchRequest(predicate)
        request.resultType = .changesOnly
        return try history(stack, request).changes ?? []
    }

    /// A batch delete leaving gaps among the keys, of two entities sharing a table: one change
    /// per deleted object, in key order, IDs unique and below those of later changes, each
    /// object's own history found by object and each change by its ID — also under NOT.
    func testABatchDeleteWithGapsIsOneChangePerObjectFoundByObjectAndID() {
        forEachBackend { backend in
            let stack = try stack(backend, model: Self.rangeModel())
            let ids = try insertReadings(stack)
            XCTAssertEqual(ids.count, 20, "\(backend)")
            let before = try transactions(stack).last?.token
            let context = stack.newContext()
            let deleted = try context.performAndWait {
                var delete = BatchDeleteRequest(fetchRequest: FetchRequest<ManagedObject>(entityName: "Reading", predicate: "value != 4 AND value != 9"))
                delete.resultType = .count
                return try context.execute(delete).count
            }
            XCTAssertEqual(deleted, 18, "\(backend)")
            try context.performAndWait {
                let later = try context.insertNewObject(forEntityName: "Reading")
                try later.setValue(Int64(21), forKey: "value")
                try context.save()
            }
            try stack.reopen()

            let after = try transactions(stack, after: before)
            XCTAssertEqual(after.count, 2, "\(backend): the delete, then the save")
            guard after.count == 2 else { return }
            let removed = after[0].changes ?? []
            let deletedValues: [Int64] = [1, 2, 3, 5, 6, 7, 8, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]
            XCTAssertEqual(Set(removed.map(\.changedObjectID)), Set(deletedValues.compactMap { ids[$0] }), "\(backend): each deleted object")
            XCTAssertEqual(removed.count, deletedValues.count, "\(backend): once")
            XCTAssertTrue(removed.allSatisfy { $0.changeType == .delete && ($0.tombstone ?? [:]).isEmpty }, "\(backend)")
            XCTAssertEqual(removed.map(\.changedObjectID.entityName).filter { $0 == "Alarm" }.count, 4, "\(backend)")
            let removedIDs = removed.map(\.changeID)
            XCTAssertEqual(removedIDs, removedIDs.sorted(), "\(backend): IDs in change order")
            XCTAssertEqual(Set(removedIDs).count, removedIDs.count, "\(backend): IDs unique")
            let saved = try XCTUnwrap(after[1].changes?.first, "\(backend)")
            XCTAssertGreaterThan(saved.changeID, removedIDs.last ?? .max, "\(backend): a later change takes a later ID")

            // Per object: the first, a middle and the last key of a run, an alarm, an object kept.
            let all = try transactions(stack).flatMap { $0.changes ?? [] }
            for value: Int64 in [1, 2, 3, 5, 10, 11, 13, 14, 15, 20, 4] {
                let id = try XCTUnwrap(ids[value])
                let own = try changes(stack, Self.compare("changedObjectID", .equalTo, .objectID(id)))
                XCTAssertEqual(own.map(\.changeType), value == 4 ? [.insert] : [.insert, .delete], "\(backend): value \(value)")
                XCTAssertEqual(own, all.filter { $0.changedObjectID == id }, "\(backend): value \(value)")
                let others = try changes(stack, .not(Self.compare("changedObjectID", .equalTo, .objectID(id))))
                XCTAssertEqual(others, all.filter { $0.changedObjectID != id }, "\(backend): NOT == \(value)")
                let unequal = try changes(stack, Self.compare("changedObjectID", .notEqualTo, .objectID(id)))
                XCTAssertEqual(unequal, others, "\(backend): != \(value)")
                let notUnequal = try changes(stack, .not(Self.compare("changedObjectID", .notEqualTo, .objectID(id))))
                XCTAssertEqual(notUnequal, own, "\(backend): NOT != \(value)")
            }

            // Per change ID: inside the delete, at its ends, and around them.
            for change in [removed[0], removed[1], removed[5], removed[8], removed[17], saved] {
                let id = change.changeID
                let exactly = try changes(stack, Self.compare("changeID", .equalTo, .integer(id)))
                XCTAssertEqual(exactly, [change], "\(backend): changeID == \(id)")
                for op: StoreComparison.Operator in [.lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo, .notEqualTo] {
                    let expected = all.filter {
                        switch op {
                        case .lessThan: $0.changeID < id
                        case .lessThanOrEqualTo: $0.changeID <= id
                        case .greaterThan: $0.changeID > id
                        case .greaterThanOrEqualTo: $0.changeID >= id
                        default: $0.changeID != id
                        }
                    }
                    XCTAssertEqual(try changes(stack, Self.compare("changeID", op, .integer(id))), expected, "\(backend): changeID \(op) \(id)")
                    let complement = all.filter { !expected.contains($0) }
                    XCTAssertEqual(try changes(stack, .not(Self.compare("changeID", op, .integer(id)))), complement, "\(backend): NOT changeID \(op) \(id)")
                }
            }

            // Per entity and per transaction, shaped as counts.
            XCTAssertEqual(try changes(stack, after: before, Self.compare("changedEntity", .equalTo, .string("Alarm"))).count, 4, "\(backend)")
            var count = PersistentHistoryChangeRequest.fetchHistory(after: before)
            count.fetchRequest = PersistentHistoryChange.fetchRequest(.and([
                Self.compare("changeType", .equalTo, .integer(Int64(PersistentHistoryChange.ChangeType.delete.rawValue))),
                .not(Self.compare("changedObjectID", .equalTo, .objectID(try XCTUnwrap(ids[12])))),
            ]))
            count.resultType = .count
            XCTAssertEqual(try history(stack, count).count, 17, "\(backend)")
        }
    }

    /// A batch update of the objects at both ends of the keys: one change per updated object,
    /// with the updated property; then history deleted up to it keeps the later delete whole.
    func testABatchUpdateWithGapsThenHistoryDeletedUpToItKeepsTheRestWhole() {
        forEachBackend { backend in
            let stack = try stack(backend, model: Self.rangeModel())
            let ids = try insertReadings(stack)
            let context = stack.newContext()
            try context.performAndWait {
                _ = try context.execute(BatchUpdateRequest(entityName: "Reading", predicate: "value < 4 OR value > 12", propertiesToUpdate: ["tag": .constant(.string("u"))]))
                _ = try context.execute(BatchDeleteRequest(fetchRequest: FetchRequest<ManagedObject>(entityName: "Reading", predicate: "value > 2 AND value != 16")))
            }
            try stack.reopen()
            let all = try transactions(stack)
            XCTAssertEqual(all.count, 5, "\(backend): three inserts, the update, the delete")
            guard all.count == 5 else { return }
            let updated = all[3].changes ?? []
            let updatedValues: [Int64] = [1, 2, 3, 13, 14, 15, 16, 17, 18, 19, 20]
            XCTAssertEqual(Set(updated.map(\.changedObjectID)), Set(updatedValues.compactMap { ids[$0] }), "\(backend)")
            XCTAssertEqual(updated.count, updatedValues.count, "\(backend)")
            XCTAssertTrue(updated.allSatisfy { $0.changeType == .update && $0.updatedProperties == ["tag"] }, "\(backend)")
            let deleteChanges = all[4].changes ?? []
            XCTAssertEqual(deleteChanges.count, 17, "\(backend)")

            _ = try history(stack, .deleteHistory(before: all[3].token))
            try stack.reopen()
            let kept = try transactions(stack)
            XCTAssertEqual(kept.map(\.token), [all[4].token], "\(backend)")
            XCTAssertEqual(kept.first?.changes, deleteChanges, "\(backend): the delete's changes whole")
            XCTAssertEqual(try transactions(stack, after: all[3].token).first?.changes, deleteChanges, "\(backend)")
            let sixteen = try changes(stack, Self.compare("changedObjectID", .equalTo, .objectID(try XCTUnwrap(ids[16]))))
            XCTAssertEqual(sixteen, [], "\(backend): the object kept has no history left")
            let fifteen = try changes(stack, Self.compare("changedObjectID", .equalTo, .objectID(try XCTUnwrap(ids[15]))))
            XCTAssertEqual(fifteen.map(\.changeType), [.delete], "\(backend)")
        }
    }

    /// Objects whose entity preserves attributes keep their tombstones when deleted in a batch
    /// with gaps, each with its own values.
    func testABatchDeleteWithGapsKeepsEachTombstone() {
        forEachBackend { backend in
            let stack = try stack(backend, model: Self.rangeModel())
            let context = stack.newContext()
            try context.performAndWait {
                _ = try context.execute(BatchInsertRequest(entityName: "Note", objects: (1...6).map { ["text": "n\($0)", "rank": Int64($0)] }))
                _ = try context.execute(BatchDeleteRequest(fetchRequest: FetchRequest<ManagedObject>(entityName: "Note", predicate: "rank != 3")))
            }
            try stack.reopen()
            let changes = try transactions(stack).last?.changes ?? []
            XCTAssertEqual(Set(changes.compactMap { $0.tombstone?["text"] }), Set(["n1", "n2", "n4", "n5", "n6"].map { StoreValue.string($0) }), "\(backend)")
            XCTAssertEqual(changes.count, 5, "\(backend)")
        }
    }

    func runBatchRangeChecks() {
        testABatchDeleteWithGapsIsOneChangePerObjectFoundByObjectAndID()
        testABatchUpdateWithGapsThenHistoryDeletedUpToItKeepsTheRestWhole()
        testABatchDeleteWithGapsKeepsEachTombstone()
    }
}
