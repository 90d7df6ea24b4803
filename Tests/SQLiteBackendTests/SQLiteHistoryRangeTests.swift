import Foundation
@testable import SQLiteBackend
import StoreCore
import StoreSQL
import StoreTestSupport
import XCTest

/// Batch requests are recorded as ranges of keys in `Z_HISTORYCHANGE` (one row per run of
/// consecutive keys) and read back as one change per object, in key order; a file written
/// before ranges has none and is read as it is, and gets the column when opened for writing.
final class SQLiteHistoryRangeTests: XCTestCase {
    private func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Reading") { .attribute("value", .integer64, optional: false, defaultValue: .integer(0)) }
        }
    }

    private func historyChanges(_ context: ManagedObjectContext, after token: PersistentHistoryToken?) throws -> [PersistentHistoryChange] {
        var request = PersistentHistoryChangeRequest.fetchHistory(after: token)
        request.resultType = .changesOnly
        return try context.performAndWait { try context.execute(request).changes ?? [] }
    }

    func testABatchDeleteWithGapsIsOneRowPerRunReadBackInKeyOrderWithConsecutiveIDs() throws {
        let test = try SQLiteTestStore(try model()) { $0.isHistoryTrackingEnabled = true }
        let context = test.container.newBackgroundContext()
        let token = try context.performAndWait {
            _ = try context.execute(BatchInsertRequest(entityName: "Reading", objects: (1...10).map { ["value": Int64($0)] }))
            return try context.execute(PersistentHistoryChangeRequest.fetchHistory(after: nil as PersistentHistoryToken?)).transactions?.last?.token
        }
        try context.performAndWait {
            _ = try context.execute(BatchDeleteRequest(fetchRequest: FetchRequest<ManagedObject>(entityName: "Reading", predicate: "value != 4 AND value != 7")))
        }
        XCTAssertEqual(
            try test.column("SELECT ZENTITYPK || '-' || COALESCE(ZLASTENTITYPK, '') FROM Z_HISTORYCHANGE ORDER BY Z_PK"),
            ["1-10", "1-3", "5-6", "8-10"].map(SQLValue.text), "the insert as one range, the delete as three")
        let changes = try historyChanges(context, after: token)
        XCTAssertEqual(changes.compactMap(\.changedObjectID.primaryKey), [1, 2, 3, 5, 6, 8, 9, 10])
        let ids = changes.map(\.changeID)
        XCTAssertEqual(ids, Array((ids.first ?? 0)..<((ids.first ?? 0) + 8)), "one ID per object, in key order")
        XCTAssertGreaterThan(ids.first ?? 0, 10, "after the insert's ten")
    }

    /// A file from a build before ranges: `Z_HISTORYCHANGE` without `ZLASTENTITYPK`, one row
    /// per object. Read-only it reads as before; opened for writing it gets the column, and its
    /// old rows read next to the new ranges.
    func testAStoreWrittenBeforeRangesIsReadAndGetsTheColumnWhenOpenedForWriting() throws {
        let test = try SQLiteTestStore(try model()) { $0.isHistoryTrackingEnabled = true }
        let context = test.container.newBackgroundContext()
        try context.performAndWait {
            for value in [1, 2, 3] as [Int64] {
                let reading = try context.insertNewObject(forEntityName: "Reading")
                try reading.setValue(value, forKey: "value")
                try context.save()
            }
        }
        let written = try historyChanges(context, after: nil)
        XCTAssertEqual(written.count, 3)
        let coordinator = test.container.persistentStoreCoordinator
        for store in coordinator.persistentStores { try coordinator.removePersistentStore(store) }
        let connection = try SQLiteConnection(path: test.url.path, mode: .readWrite, log: .disabled)
        try connection.execute("DROP INDEX Z_HISTORYCHANGE_RANGE")
        try connection.execute("ALTER TABLE Z_HISTORYCHANGE DROP COLUMN ZLASTENTITYPK")

        let readOnly = try TestStack.sqliteContainer(try model(), at: test.url) {
            $0.isHistoryTrackingEnabled = true
            $0.isReadOnly = true
        }
        XCTAssertEqual(try historyChanges(readOnly.newBackgroundContext(), after: nil), written, "read as it is")

        let writable = try TestStack.sqliteContainer(try model(), at: test.url) { $0.isHistoryTrackingEnabled = true }
        let writer = writable.newBackgroundContext()
        try writer.performAndWait {
            _ = try writer.execute(BatchDeleteRequest(fetchRequest: FetchRequest<ManagedObject>(entityName: "Reading")))
        }
        let all = try historyChanges(writer, after: nil)
        XCTAssertEqual(Array(all.prefix(3)), written, "the old rows as before")
        XCTAssertEqual(all.dropFirst(3).map(\.changeType), [.delete, .delete, .delete])
        XCTAssertEqual(all.dropFirst(3).compactMap(\.changedObjectID.primaryKey), [1, 2, 3])
        XCTAssertEqual(try test.column("SELECT COUNT(*) FROM Z_HISTORYCHANGE WHERE ZLASTENTITYPK = 3"), [.integer(1)], "the delete as one range")
    }
}
