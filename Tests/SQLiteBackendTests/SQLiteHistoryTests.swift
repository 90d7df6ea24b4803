import Foundation
@testable import SQLiteBackend
import StoreCore
import StoreSQL
import StoreTestSupport
import XCTest

/// What only the SQLite store's history promises: the tailored fetch is one indexed query, and
/// history is written in the same transaction as the data.
final class SQLiteHistoryTests: XCTestCase {
    private func quakeStore() throws -> SQLiteTestStore {
        try SQLiteTestStore(QuakeModel.make()) { $0.isHistoryTrackingEnabled = true }
    }

    private func plan(_ sql: String, _ arguments: [SQLValue], on store: SQLiteStore) throws -> [String] {
        try store.read { connection in
            var lines: [String] = []
            try connection.query("EXPLAIN QUERY PLAN " + sql, arguments) { lines.append($0.string(at: 3) ?? "") }
            return lines
        }
    }

    func testChangesToOneObjectAfterADateAreOneIndexedQuery() throws {
        let test = try quakeStore()
        let context = test.container.newBackgroundContext()
        let id = try context.performAndWait {
            _ = try context.execute(BatchInsertRequest(entityName: "Quake", objects: QuakeModel.rows(50)))
            return try XCTUnwrap(context.fetch(FetchRequest<ManagedObject>(entityName: "Quake", predicate: "code == 'q7'")).first?.objectID)
        }
        var request = PersistentHistoryChangeRequest.fetchHistory(after: Date(timeIntervalSinceNow: -60))
        request.fetchRequest = PersistentHistoryChange.fetchRequest(try .format("changedObjectID == %@", id))
        let store = try test.store
        let query = HistoryQuery(request, schema: store.schema, storeIdentifier: store.identifier, ranges: store.hasHistoryChangeRanges)
        XCTAssertTrue(query.sql.contains("c.ZENTITYPK IN"), "the predicate goes into the SQL: \(query.sql)")
        XCTAssertFalse(query.translatedPredicate, "and is checked again on the changes of a range holding the object")
        let lines = try plan(query.sql, query.arguments, on: store)
        XCTAssertTrue(lines.contains { $0.contains("Z_HISTORYCHANGE_OBJECT") }, "\(lines)")
        XCTAssertTrue(lines.contains { $0.contains("Z_HISTORYCHANGE_RANGE") }, "ranges holding the object found by their index: \(lines)")
        XCTAssertFalse(lines.contains { $0.hasPrefix("SCAN") && $0 != "SCAN CONSTANT ROW" }, "no table is scanned: \(lines)")
        let before = try test.queries
        let changes = try context.performAndWait { try context.execute(request).changes ?? [] }
        XCTAssertEqual(try test.queries - before, 1, "one query")
        XCTAssertEqual(changes.map(\.changedObjectID), [id])
    }

    /// A file written before history deletions were recorded has no `Z_HISTORYPURGE`: opened
    /// read-only it still answers token fetches; opened for writing it gets the table, and from
    /// then on deletions make older tokens expire.
    func testAStoreWithoutTheTableOfDeletionsGetsItWhenOpenedForWriting() throws {
        let test = try quakeStore()
        let context = test.container.newBackgroundContext()
        try context.performAndWait {
            for rows in [1, 2, 3] { _ = try context.execute(BatchInsertRequest(entityName: "Quake", objects: QuakeModel.rows(rows).suffix(1))) }
        }
        let tokens = try context.performAndWait {
            try context.execute(PersistentHistoryChangeRequest.fetchHistory(after: nil as PersistentHistoryToken?)).transactions?.map(\.token) ?? []
        }
        XCTAssertEqual(tokens.count, 3)
        let coordinator = test.container.persistentStoreCoordinator
        for store in coordinator.persistentStores { try coordinator.removePersistentStore(store) }
        let connection = try SQLiteConnection(path: test.url.path, mode: .readWrite, log: .disabled)
        try connection.execute("DROP TABLE Z_HISTORYPURGE")
        try connection.execute("DELETE FROM Z_HISTORYTRANSACTION WHERE Z_PK = \(tokens[0].transactionNumber)")

        let readOnly = try TestStack.sqliteContainer(QuakeModel.make(), at: test.url) {
            $0.isHistoryTrackingEnabled = true
            $0.isReadOnly = true
        }
        let reader = readOnly.newBackgroundContext()
        let after = try reader.performAndWait {
            try reader.execute(PersistentHistoryChangeRequest.fetchHistory(after: tokens[0])).transactions?.count
        }
        XCTAssertEqual(after, 2, "no record of the deletion: the token still reads")

        let writable = try TestStack.sqliteContainer(QuakeModel.make(), at: test.url) { $0.isHistoryTrackingEnabled = true }
        let writer = writable.newBackgroundContext()
        try writer.performAndWait {
            _ = try writer.execute(PersistentHistoryChangeRequest.deleteHistory(before: tokens[1]))
            XCTAssertThrowsError(try writer.execute(PersistentHistoryChangeRequest.fetchHistory(after: tokens[0]))) { error in
                XCTAssertEqual((error as? StoreError)?.code, .persistentHistoryTokenExpired, "\(error)")
            }
            XCTAssertEqual(try writer.execute(PersistentHistoryChangeRequest.fetchHistory(after: tokens[1])).transactions?.map(\.token), [tokens[2]])
        }
        XCTAssertEqual(try test.column("SELECT ZTRANSACTION FROM Z_HISTORYPURGE"), [.integer(tokens[1].transactionNumber)], "one row")
    }

    func testAFailedSaveWritesNoHistory() throws {
        let test = try quakeStore()
        let context = test.container.newBackgroundContext()
        try context.performAndWait {
            _ = try context.execute(BatchInsertRequest(entityName: "Quake", objects: [["code": "a"]]))
            let duplicate = try context.insertNewObject(forEntityName: "Quake")
            try duplicate.setValue("a", forKey: "code")
            XCTAssertThrowsError(try context.save())
            XCTAssertThrowsError(try context.execute(BatchInsertRequest(entityName: "Quake", objects: [["code": "b"], ["code": "a"]])))
            let transactions = try context.execute(PersistentHistoryChangeRequest.fetchHistory(after: nil as PersistentHistoryToken?)).transactions ?? []
            XCTAssertEqual(transactions.count, 1, "only the successful batch insert is in history: \(transactions)")
            context.rollback()
            XCTAssertEqual(try context.count(for: FetchRequest<ManagedObject>(entityName: "Quake")), 1)
        }
    }

    func testABatchDeleteOfObjectsWithoutRelationshipsRecordsEachWithItsTombstone() throws {
        let model = try ManagedObjectModel {
            EntityDescription("Note") {
                .attribute("text", .string, preservesValueInHistoryOnDeletion: true)
                .attribute("rank", .integer64, optional: false, defaultValue: .integer(0))
            }
        }
        let test = try SQLiteTestStore(model) { $0.isHistoryTrackingEnabled = true }
        let context = test.container.newBackgroundContext()
        try context.performAndWait {
            let rows: [[String: Any]] = (1...5).map { ["text": "n\($0)", "rank": $0] }
            _ = try context.execute(BatchInsertRequest(entityName: "Note", objects: rows))
            let token = try context.execute(PersistentHistoryChangeRequest.fetchHistory(after: nil as PersistentHistoryToken?)).transactions?.last?.token
            var delete = BatchDeleteRequest(fetchRequest: FetchRequest<ManagedObject>(entityName: "Note", predicate: "rank >= 3"))
            delete.resultType = .objectIDs
            let deleted = try context.execute(delete).objectIDs ?? []
            XCTAssertEqual(deleted.count, 3)
            XCTAssertEqual(try context.count(for: FetchRequest<ManagedObject>(entityName: "Note")), 2, "the others stay")
            let transactions = try context.execute(PersistentHistoryChangeRequest.fetchHistory(after: token)).transactions ?? []
            XCTAssertEqual(transactions.count, 1, "one transaction for the batch delete")
            let changes = transactions.first?.changes ?? []
            XCTAssertEqual(changes.map(\.changeType), [.delete, .delete, .delete])
            XCTAssertEqual(Set(changes.map(\.changedObjectID)), Set(deleted))
            XCTAssertEqual(changes.compactMap { $0.tombstone?["text"] }, [.string("n3"), .string("n4"), .string("n5")], "tombstones in key order")
        }
    }
}
