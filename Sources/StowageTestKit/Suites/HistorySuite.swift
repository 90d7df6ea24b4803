import Foundation
import StoreCore
import XCTest

/// Persistent history on every store type: one transaction per save or batch request, fetched
/// after a token, date or transaction, narrowed, shaped by result type, merged and deleted —
/// with file-backed stores closed and opened again in between.
struct HistorySuite {
    let kit: StoreTestKit

    /// Runs one check of the suite on the kit's store, failures naming the store and the check.
    func forEachBackend(_ name: String = #function, _ body: (StoreTestKit) throws -> Void) {
        kit.check(name) { try body(kit) }
    }

    private func stack(_ backend: StoreTestKit) throws -> StoreTestStack {
        try backend.makeStack(model: QuakeModel.make(), options: [.persistentHistoryTracking: true])
    }

    private func context(_ stack: StoreTestStack, author: String = "tests") -> ManagedObjectContext {
        let context = stack.newContext()
        context.transactionAuthor = author
        context.name = "history"
        return context
    }

    func history(_ stack: StoreTestStack, _ request: PersistentHistoryChangeRequest) throws -> PersistentHistoryResult {
        let context = stack.newContext()
        return try context.performAndWait { try context.execute(request) }
    }

    func transactions(_ stack: StoreTestStack, after token: PersistentHistoryToken? = nil) throws -> [PersistentHistoryTransaction] {
        try history(stack, .fetchHistory(after: token)).transactions ?? []
    }

    /// Saves a quake, updates one property of it, then deletes it: three transactions.
    @discardableResult
    private func insertUpdateDelete(_ stack: StoreTestStack, code: String) throws -> ManagedObjectID {
        let context = context(stack)
        return try context.performAndWait {
            let quake = try context.insertNewObject(forEntityName: "Quake")
            try quake.setValue(code, forKey: "code")
            try quake.setValue(Int32(12), forKey: "depth")
            try quake.setValue(2.5, forKey: "magnitude")
            try context.save()
            try quake.setValue(3.5, forKey: "magnitude")
            try context.save()
            context.delete(quake)
            try context.save()
            return quake.objectID
        }
    }

    func testEverySaveWritesOneTransactionWithItsChangesInOrder() {
        forEachBackend { backend in
            let stack = try stack(backend)
            let id = try insertUpdateDelete(stack, code: "a")
            try stack.reopen()
            let all = try transactions(stack)
            XCTAssertEqual(all.count, 3, "\(backend)")
            XCTAssertEqual(all.map(\.token), all.map(\.token).sorted(), "\(backend): tokens grow")
            XCTAssertEqual(all.compactMap { $0.changes?.first?.changeType }, [.insert, .update, .delete], "\(backend)")
            XCTAssertTrue(all.allSatisfy { $0.author == "tests" && $0.contextName == "history" }, "\(backend)")
            XCTAssertTrue(all.allSatisfy { $0.processID == ProcessInfo.processInfo.processIdentifier }, "\(backend)")
            XCTAssertTrue(all.allSatisfy { $0.storeID == (try? stack.store.identifier) }, "\(backend)")
            XCTAssertTrue(all.allSatisfy { $0.changes?.first?.changedObjectID.uriRepresentation == id.uriRepresentation }, "\(backend)")
            XCTAssertEqual(all[1].changes?.first?.updatedProperties, ["magnitude"], "\(backend): only what changed")
            XCTAssertEqual(all[2].changes?.first?.tombstone, ["code": .string("a"), "depth": .integer(12)], "\(backend): the preserved values")
            XCTAssertNil(all[0].changes?.first?.updatedProperties, "\(backend)")
        }
    }

    func testHistoryAfterATokenReturnsExactlyTheLaterTransactions() {
        forEachBackend { backend in
            let stack = try stack(backend)
            try insertUpdateDelete(stack, code: "a")
            let token = try transactions(stack).last?.token
            let current = try stack.newContext().persistentStoreCoordinator?.currentPersistentHistoryToken()
            XCTAssertEqual(current, token, "\(backend): the store's current token is its last transaction's")
            let encoded = try JSONEncoder().encode(token)
            let decoded = try JSONDecoder().decode(PersistentHistoryToken.self, from: encoded)
            try insertUpdateDelete(stack, code: "b")
            try stack.reopen()
            let later = try transactions(stack, after: decoded)
            XCTAssertEqual(later.count, 3, "\(backend)")
            XCTAssertTrue(later.allSatisfy { $0.token > decoded }, "\(backend)")
            XCTAssertEqual(later.compactMap { $0.changes?.first?.tombstone?["code"] }, [.string("b")], "\(backend)")
            XCTAssertEqual(try history(stack, .fetchHistory(after: later[0])).transactions?.count, 2, "\(backend): after a transaction")
            XCTAssertEqual(try history(stack, .fetchHistory(after: Date.distantFuture)).transactions, [], "\(backend): after a date")
        }
    }

    func testResultTypesAndNarrowingFetchRequests() {
        forEachBackend { backend in
            let stack = try stack(backend)
            let a = try insertUpdateDelete(stack, code: "a")
            let other = context(stack, author: "importer")
            try other.performAndWait {
                let quake = try other.insertNewObject(forEntityName: "Quake")
                try quake.setValue("b", forKey: "code")
                try other.save()
            }
            try stack.reopen()
            var request = PersistentHistoryChangeRequest.fetchHistory(after: Date.distantPast)
            request.resultType = .transactionsOnly
            XCTAssertEqual(try history(stack, request).transactions?.map(\.changes), [nil, nil, nil, nil], "\(backend)")
            request.resultType = .changesOnly
            XCTAssertEqual(try history(stack, request).changes?.count, 4, "\(backend)")
            request.resultType = .count
            XCTAssertEqual(try history(stack, request).count, 4, "\(backend)")
            request.resultType = .statusOnly
            XCTAssertEqual(try history(stack, request).status, true, "\(backend)")

            // The seed's query: every change to one object after a date.
            var seed = PersistentHistoryChangeRequest.fetchHistory(after: Date(timeIntervalSinceNow: -3600))
            seed.fetchRequest = PersistentHistoryChange.fetchRequest(try .format("changedObjectID == %@", a))
            seed.resultType = .changesOnly
            XCTAssertEqual(try history(stack, seed).changes?.map(\.changeType), [.insert, .update, .delete], "\(backend)")
            var updates = PersistentHistoryChangeRequest.fetchHistory(after: nil as PersistentHistoryToken?)
            updates.fetchRequest = PersistentHistoryChange.fetchRequest(try .format("changeType == %d AND transaction.author == %@", PersistentHistoryChange.ChangeType.update.rawValue, "tests"))
            XCTAssertEqual(try history(stack, updates).transactions?.count, 1, "\(backend)")
            var byAuthor = PersistentHistoryChangeRequest.fetchHistory(after: nil as PersistentHistoryToken?)
            byAuthor.fetchRequest = PersistentHistoryTransaction.fetchRequest(try .format("author == %@", "importer"))
            XCTAssertEqual(try history(stack, byAuthor).transactions?.map(\.author), ["importer"], "\(backend)")
        }
    }

    func testBatchRequestsWriteOneTransactionEach() {
        forEachBackend { backend in
            let stack = try stack(backend)
            let context = context(stack, author: "batch")
            try context.performAndWait {
                try _ = context.execute(BatchInsertRequest(entityName: "Quake", objects: QuakeModel.rows(3)))
                try context.execute(BatchUpdateRequest(entityName: "Quake", predicate: "magnitude > 1", propertiesToUpdate: ["place": .constant(.string("x"))]))
                var fetch = FetchRequest<ManagedObject>(entityName: "Quake", predicate: nil, sortDescriptors: [.ascending("code")])
                fetch.fetchLimit = 1
                try context.execute(BatchDeleteRequest(fetchRequest: fetch))
            }
            try stack.reopen()
            let all = try transactions(stack)
            XCTAssertEqual(all.map { $0.changes?.count ?? 0 }, [3, 2, 1], "\(backend)")
            XCTAssertEqual(all.map { $0.changes?.first?.changeType }, [.insert, .update, .delete], "\(backend)")
            XCTAssertTrue(all.allSatisfy { $0.author == "batch" }, "\(backend)")
            XCTAssertEqual(all[1].changes?.first?.updatedProperties, ["place"], "\(backend)")
            XCTAssertEqual(all[2].changes?.first?.tombstone?["code"], .string("q1"), "\(backend)")
        }
    }

    func testHistoryOfABatchDeleteMergesIntoALiveContext() {
        forEachBackend { backend in
            let stack = try stack(backend)
            let worker = context(stack)
            try worker.performAndWait { _ = try worker.execute(BatchInsertRequest(entityName: "Quake", objects: QuakeModel.rows(4))) }
            let token = try transactions(stack).last?.token
            let live = stack.newContext()
            let shown = try live.performAndWait { try live.fetch(FetchRequest<ManagedObject>(entityName: "Quake")) }
            XCTAssertEqual(shown.count, 4)
            _ = try worker.performAndWait {
                try worker.execute(BatchDeleteRequest(fetchRequest: FetchRequest<ManagedObject>(entityName: "Quake", predicate: "magnitude >= 3")))
            }
            for transaction in try transactions(stack, after: token) {
                live.performAndWait { live.mergeChanges(fromContextDidSave: transaction.objectIDNotification()) }
            }
            try live.performAndWait {
                XCTAssertEqual(live.registeredObjects.count, 2, "\(backend): the deleted objects left the context")
                let codes = try live.fetch(FetchRequest<ManagedObject>(entityName: "Quake")).map { try $0.value(forKey: "code") as? String }
                XCTAssertEqual(Set(codes), ["q1", "q2"], "\(backend)")
            }
        }
    }

    func testDeletingHistoryBeforeATokenKeepsTheRest() {
        forEachBackend { backend in
            let stack = try stack(backend)
            try insertUpdateDelete(stack, code: "a")
            let all = try transactions(stack)
            var delete = PersistentHistoryChangeRequest.deleteHistory(before: all[1].token)
            delete.resultType = .count
            XCTAssertEqual(try history(stack, delete).count, 2, "\(backend)")
            try stack.reopen()
            XCTAssertEqual(try transactions(stack).map(\.token), [all[2].token], "\(backend)")
            try insertUpdateDelete(stack, code: "b")
            XCTAssertGreaterThan(try transactions(stack).last?.token.transactionNumber ?? 0, all[2].token.transactionNumber, "\(backend): numbers are never reused")
            _ = try history(stack, .deleteHistory(before: Date.distantFuture))
            XCTAssertEqual(try transactions(stack), [], "\(backend)")
        }
    }

    /// Core Data's `NSPersistentHistoryTokenExpiredError`: once history after a token is deleted,
    /// fetching after that token fails rather than returning what is left as if it were all; a
    /// token at or after the newest transaction deleted, no token, and dates still work.
    func testATokenOlderThanDeletedHistoryHasExpired() {
        forEachBackend { backend in
            let stack = try stack(backend)
            try insertUpdateDelete(stack, code: "a")
            try insertUpdateDelete(stack, code: "b")
            let all = try transactions(stack)
            XCTAssertEqual(all.count, 6, "\(backend)")
            guard all.count == 6 else { return }
            func expired(after token: PersistentHistoryToken) -> Bool {
                do {
                    _ = try history(stack, .fetchHistory(after: token))
                    return false
                } catch {
                    XCTAssertEqual((error as? StoreError)?.code, .persistentHistoryTokenExpired, "\(backend): \(error)")
                    return true
                }
            }
            XCTAssertFalse(expired(after: all[0].token), "\(backend): nothing deleted yet")
            _ = try history(stack, .deleteHistory(before: all[2].token))
            try stack.reopen()
            XCTAssertTrue(expired(after: all[0].token), "\(backend): transactions 2 and 3 after it are gone")
            XCTAssertTrue(expired(after: all[1].token), "\(backend): transaction 3 after it is gone")
            XCTAssertFalse(expired(after: all[2].token), "\(backend): the newest transaction deleted is the boundary")
            XCTAssertEqual(try transactions(stack, after: all[2].token).map(\.token), Array(all[3...].map(\.token)), "\(backend)")
            XCTAssertEqual(try transactions(stack, after: all[3].token).count, 2, "\(backend)")
            XCTAssertEqual(try transactions(stack).count, 3, "\(backend): after no token, what is kept")
            XCTAssertEqual(try history(stack, .fetchHistory(after: Date.distantPast)).transactions?.count, 3, "\(backend): dates do not expire")

            // Deleting everything: every earlier token but the last has expired; later history is read after the last.
            _ = try history(stack, .deleteHistory(before: Date.distantFuture))
            XCTAssertTrue(expired(after: all[4].token), "\(backend)")
            XCTAssertFalse(expired(after: all[5].token), "\(backend)")
            try insertUpdateDelete(stack, code: "c")
            try stack.reopen()
            XCTAssertEqual(try transactions(stack, after: all[5].token).count, 3, "\(backend)")
            XCTAssertTrue(expired(after: all[3].token), "\(backend): still expired after more saves and a reopen")
        }
    }

    func testAStoreWithoutTrackingRefusesHistoryRequests() throws {
        let stack = try kit.makeStack(model: QuakeModel.make())
        XCTAssertThrowsError(try history(stack, .fetchHistory(after: nil as PersistentHistoryToken?))) { error in
            XCTAssertEqual((error as? StoreError)?.code, .unsupportedRequest, "\(kit)")
        }
    }

    func run() {
        testEverySaveWritesOneTransactionWithItsChangesInOrder()
        testHistoryAfterATokenReturnsExactlyTheLaterTransactions()
        testResultTypesAndNarrowingFetchRequests()
        testBatchRequestsWriteOneTransactionEach()
        testHistoryOfABatchDeleteMergesIntoALiveContext()
        testDeletingHistoryBeforeATokenKeepsTheRest()
        testATokenOlderThanDeletedHistoryHasExpired()
        kit.check("testAStoreWithoutTrackingRefusesHistoryRequests") { try testAStoreWithoutTrackingRefusesHistoryRequests() }
        runBatchRangeChecks()
    }
}
