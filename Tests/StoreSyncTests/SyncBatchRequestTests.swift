import Foundation
import StoreCore
import StoreSync
import StoreTestSupport
import XCTest

/// Batch requests reach other clients through history: a batch update and a batch delete whose
/// objects' keys have gaps (recorded by the SQL stores as ranges of keys) push exactly the
/// objects they changed.
final class SyncBatchRequestTests: SyncTestCase {
    func testABatchUpdateAndDeleteWithGapsReachAnotherClient() async throws {
        let server = try store("server"), a = try store("a"), b = try store("b")
        let engineA = try SyncEngine(local: a.container, server: server.container)
        let engineB = try SyncEngine(local: b.container, server: server.container)
        try a.edit { context in
            for level in 1...10 {
                let setting = try context.insertNewObject(forEntityName: "Setting")
                try setting.setValue("k\(level)", forKey: "key")
                try setting.setValue(Int64(level), forKey: "level")
            }
        }
        try await engineA.sync()
        try await engineB.sync()
        XCTAssertEqual(try b.edit { try $0.all("Setting").count }, 10)

        let context = a.container.newBackgroundContext()
        try context.performAndWait {
            _ = try context.execute(BatchUpdateRequest(entityName: "Setting", predicate: "level < 3 OR level > 7", propertiesToUpdate: ["value": .constant(.string("u"))]))
            _ = try context.execute(BatchDeleteRequest(fetchRequest: FetchRequest<ManagedObject>(entityName: "Setting", predicate: "level > 1 AND level != 5 AND level != 8")))
        }
        let pushed = try await engineA.sync()
        XCTAssertEqual(pushed.pushed.deleted, 7, "2–4, 6–7, 9–10")
        let pulled = try await engineB.sync()
        XCTAssertEqual(pulled.pulled.deleted, 7)
        let left = try b.edit { context in
            try context.all("Setting").map { "\(try $0.value(forKey: "key") as? String ?? "")=\(try $0.value(forKey: "value") as? String ?? "-")" }.sorted()
        }
        XCTAssertEqual(left, ["k1=u", "k5=-", "k8=u"])
        XCTAssertEqual(try a.contents(), try b.contents())
        XCTAssertEqual(try a.contents(), try server.contents())
    }
}
