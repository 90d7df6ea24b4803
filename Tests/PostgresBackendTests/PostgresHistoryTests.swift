#if Postgres  // the PostgreSQL store is built only with the Postgres package trait (Package.swift)
import Foundation
import PostgresBackend
import StoreCore
import StoreTestSupport
import XCTest

/// A store made before history deletions were recorded (no `Z_HISTORYPURGE`) still answers token
/// fetches when opened read-only, and gets the table when opened for writing — after which
/// deletions make older tokens expire, as on every store (the shared kit checks that part).
final class PostgresHistoryTests: XCTestCase {
    private func container(schema: String, readOnly: Bool = false) throws -> PersistentContainer {
        PostgresStore.register()
        let container = PersistentContainer(name: "Quakes", managedObjectModel: try QuakeModel.make())
        var description = try PostgresTestServer.description(schema: schema)
        description.isHistoryTrackingEnabled = true
        description.isReadOnly = readOnly
        container.persistentStoreDescriptions = [description]
        try container.loadPersistentStores()
        return container
    }

    private func close(_ container: PersistentContainer) throws {
        let coordinator = container.persistentStoreCoordinator
        for store in coordinator.persistentStores { try coordinator.removePersistentStore(store) }
    }

    func testAStoreWithoutTheTableOfDeletionsGetsItWhenOpenedForWriting() throws {
        let schema = PostgresTestServer.freshSchema("purge")
        let first = try container(schema: schema)
        let context = first.newBackgroundContext()
        let tokens = try context.performAndWait {
            for row in QuakeModel.rows(3) { _ = try context.execute(BatchInsertRequest(entityName: "Quake", objects: [row])) }
            return try context.execute(PersistentHistoryChangeRequest.fetchHistory(after: nil as PersistentHistoryToken?)).transactions?.map(\.token) ?? []
        }
        XCTAssertEqual(tokens.count, 3)
        try close(first)
        try PostgresTestCluster.sql("DROP TABLE \(schema).Z_HISTORYPURGE; DELETE FROM \(schema).Z_HISTORYTRANSACTION WHERE Z_PK = \(tokens[0].transactionNumber)")

        let readOnly = try container(schema: schema, readOnly: true)
        let reader = readOnly.newBackgroundContext()
        let after = try reader.performAndWait {
            try reader.execute(PersistentHistoryChangeRequest.fetchHistory(after: tokens[0])).transactions?.count
        }
        XCTAssertEqual(after, 2, "no record of the deletion: the token still reads")
        try close(readOnly)

        let writable = try container(schema: schema)
        let writer = writable.newBackgroundContext()
        try writer.performAndWait {
            _ = try writer.execute(PersistentHistoryChangeRequest.deleteHistory(before: tokens[1]))
            XCTAssertThrowsError(try writer.execute(PersistentHistoryChangeRequest.fetchHistory(after: tokens[0]))) { error in
                XCTAssertEqual((error as? StoreError)?.code, .persistentHistoryTokenExpired, "\(error)")
            }
            XCTAssertEqual(try writer.execute(PersistentHistoryChangeRequest.fetchHistory(after: tokens[1])).transactions?.map(\.token), [tokens[2]])
        }
        try close(writable)
        XCTAssertEqual(try PostgresTestCluster.sql("SELECT ZTRANSACTION FROM \(schema).Z_HISTORYPURGE"), "\(tokens[1].transactionNumber)", "one row")
    }

    /// A store from a build before change ranges: `Z_HISTORYCHANGE` without `ZLASTENTITYPK`.
    /// Read-only it reads as before; opened for writing it gets the column and its index, and its
    /// old rows read next to the new ranges.
    func testAStoreWrittenBeforeRangesIsReadAndGetsTheColumnWhenOpenedForWriting() throws {
        let schema = PostgresTestServer.freshSchema("ranges")
        let first = try container(schema: schema)
        let context = first.newBackgroundContext()
        func changes(_ container: PersistentContainer) throws -> [PersistentHistoryChange] {
            let context = container.newBackgroundContext()
            var request = PersistentHistoryChangeRequest.fetchHistory(after: nil as PersistentHistoryToken?)
            request.resultType = .changesOnly
            return try context.performAndWait { try context.execute(request).changes ?? [] }
        }
        try context.performAndWait {
            for name in ["a", "b", "c"] {
                try context.insertNewObject(forEntityName: "Region").setValue(name, forKey: "name")
                try context.save()
            }
        }
        let written = try changes(first)
        XCTAssertEqual(written.count, 3)
        try close(first)
        try PostgresTestCluster.sql("DROP INDEX \(schema).Z_HISTORYCHANGE_RANGE; ALTER TABLE \(schema).Z_HISTORYCHANGE DROP COLUMN ZLASTENTITYPK")

        let readOnly = try container(schema: schema, readOnly: true)
        XCTAssertEqual(try changes(readOnly), written, "read as it is")
        try close(readOnly)

        let writable = try container(schema: schema)
        let writer = writable.newBackgroundContext()
        try writer.performAndWait {
            _ = try writer.execute(BatchDeleteRequest(fetchRequest: FetchRequest<ManagedObject>(entityName: "Region")))
        }
        let all = try changes(writable)
        XCTAssertEqual(Array(all.prefix(3)), written, "the old rows as before")
        XCTAssertEqual(all.dropFirst(3).map(\.changeType), [.delete, .delete, .delete])
        XCTAssertEqual(all.dropFirst(3).map(\.changedObjectID), written.map(\.changedObjectID))
        XCTAssertEqual(Set(all.map(\.changeID)).count, 6, "IDs unique")
        try close(writable)
        XCTAssertEqual(try PostgresTestCluster.sql("SELECT COUNT(*) FROM \(schema).Z_HISTORYCHANGE WHERE ZLASTENTITYPK IS NOT NULL"), "1", "the delete as one range")
    }
}
#endif
