import Foundation
import StoreCore
import StoreSync
import StoreTestSupport
import XCTest

final class SyncEngineTests: SyncTestCase {
    func testInsertOnOneClientReachesAnother() async throws {
        let server = try store("server"), a = try store("a"), b = try store("b", .xml)
        let engineA = try SyncEngine(local: a.container, server: server.container)
        let engineB = try SyncEngine(local: b.container, server: server.container)
        try a.edit { context in
            let folder = try context.insertNewObject(forEntityName: "Folder")
            try folder.setValue("Inbox", forKey: "name")
            let note = try context.insertNewObject(forEntityName: "Note")
            try note.setValue("Hello", forKey: "title")
            try note.setValue(folder, forKey: "folder")
        }
        let pushed = try await engineA.sync()
        XCTAssertEqual(pushed.pushed.inserted, 2)
        let pulled = try await engineB.sync()
        XCTAssertEqual(pulled.pulled.inserted, 2)
        let notes = try b.edit { context in try context.all("Note").map { try $0.value(forKey: "title") as? String } }
        XCTAssertEqual(notes, ["Hello"])
        let folderName = try b.edit { context in
            try (context.all("Note").first?.value(forKey: "folder") as? ManagedObject)?.value(forKey: "name") as? String
        }
        XCTAssertEqual(folderName, "Inbox")
        XCTAssertEqual(try a.contents(), try b.contents())
        XCTAssertEqual(try a.contents(), try server.contents())
    }
}

extension SyncEngineTests {
    func testASyncWithNothingNewWritesNothing() async throws {
        let server = try store("server"), a = try store("a")
        let engine = try SyncEngine(local: a.container, server: server.container)
        try a.edit { context in try context.insertNewObject(forEntityName: "Note").setValue("n", forKey: "title") }
        try await engine.sync()
        try await engine.sync()
        let localToken = try a.container.persistentStoreCoordinator.currentPersistentHistoryToken()
        let serverToken = try server.container.persistentStoreCoordinator.currentPersistentHistoryToken()
        let summary = try await engine.sync()
        XCTAssertEqual(try a.container.persistentStoreCoordinator.currentPersistentHistoryToken(), localToken, "no local transaction (live sync would loop on its own saves)")
        XCTAssertEqual(try server.container.persistentStoreCoordinator.currentPersistentHistoryToken(), serverToken)
        XCTAssertEqual(summary, SyncSummary())
    }

    func testEventsReportEachStep() async throws {
        let server = try store("server"), a = try store("a")
        let engine = try SyncEngine(local: a.container, server: server.container)
        let events = engine.events()
        try a.edit { context in try context.insertNewObject(forEntityName: "Note").setValue("n", forKey: "title") }
        try await engine.sync()
        var seen: [String] = []
        for await event in events {
            seen.append("\(event.type) \(event.endDate == nil ? "started" : event.succeeded ? "ok" : "failed") \(event.objectCount)")
            if event.type == .import, event.endDate != nil { break }
        }
        XCTAssertEqual(seen, ["setup started 0", "setup ok 0", "export started 0", "export ok 1", "import started 0", "import ok 0"])
    }

    func testAModelWithoutTheSyncEntitiesIsRefused() throws {
        let plain = try ManagedObjectModel { EntityDescription("Note") { .attribute("title", .string) } }
        let store = try SyncTestStore(.sqlite, in: directory, name: "plain", model: plain)
        XCTAssertThrowsError(try SyncEngine(local: store.container, server: store.container)) { error in
            XCTAssertEqual((error as? SyncError)?.code, .modelNotPrepared)
        }
    }
}

extension SyncEngineTests {
    /// Thousands of objects at once: new settings travel as rows written with the engine's
    /// saves, and reads of most of an entity read all of it in one fetch — inserts, updates of
    /// most of them and deletes still reach the other client exactly.
    func testThousandsOfObjectsInsertedUpdatedAndDeletedReachAnotherClient() async throws {
        let count = 2_500
        let server = try store("server"), a = try store("a"), b = try store("b")
        let engineA = try SyncEngine(local: a.container, server: server.container)
        let engineB = try SyncEngine(local: b.container, server: server.container)
        try await engineB.sync()
        try a.edit { context in
            for index in 0..<count {
                let setting = try context.insertNewObject(forEntityName: "Setting")
                try setting.setValue("k\(index)", forKey: "key")
                try setting.setValue("v\(index)", forKey: "value")
            }
            try context.insertNewObject(forEntityName: "Note").setValue("with them", forKey: "title")
        }
        let pushed = try await engineA.sync()
        XCTAssertEqual(pushed.pushed.inserted, count + 1)
        let pulled = try await engineB.sync()
        XCTAssertEqual(pulled.pulled.inserted, count + 1)
        // The settings, made in one save, are one run: members of one time-ordered (version 7)
        // UUID, numbered in the order the objects were made, with one identity row in each store.
        func settingIdentities(_ stack: SyncTestStore) throws -> (globalIDs: [String], rows: Int) {
            try stack.edit { context in
                let identities = try SyncEngine.globalIdentities(in: context)
                let settings = try context.all("Setting").sorted { ($0.objectID.primaryKey ?? 0) < ($1.objectID.primaryKey ?? 0) }
                return (try settings.map { try XCTUnwrap(identities[$0.objectID]) }, try context.all(SyncEngine.identityEntityName, "entityName == 'Setting'").count)
            }
        }
        let (globalIDs, rowsInA) = try settingIdentities(a)
        XCTAssertEqual(globalIDs.count, count)
        XCTAssertEqual(Set(globalIDs).count, count)
        let base = try XCTUnwrap(globalIDs.first?.split(separator: "#").first.map(String.init))
        XCTAssertEqual(globalIDs, (0..<count).map { "\(base)#\($0)" }, "numbered with the objects' keys")
        let uuid = try XCTUnwrap(UUID(uuidString: base), base)
        XCTAssertEqual(uuid.uuid.6 >> 4, 7, base)
        XCTAssertEqual(uuid.uuid.8 >> 6, 2, base)
        XCTAssertEqual(rowsInA, 1)
        let (globalIDsInB, rowsInB) = try settingIdentities(b)
        XCTAssertEqual(Set(globalIDsInB), Set(globalIDs))
        XCTAssertEqual(rowsInB, 1)
        XCTAssertEqual(try settingIdentities(server).rows, 1)

        // B changes most of them and deletes a few; A sees exactly that.
        try b.edit { context in
            for setting in try context.all("Setting") {
                let key = try XCTUnwrap(setting.value(forKey: "key") as? String)
                guard let index = Int(key.dropFirst()) else { continue }
                if index < 10 { context.delete(setting) } else if index < 2_200 { try setting.setValue("changed", forKey: "value") }
            }
        }
        try await engineB.sync()
        let back = try await engineA.sync()
        XCTAssertEqual(back.pulled.updated, 2_190)
        XCTAssertEqual(back.pulled.deleted, 10)
        let values = try a.edit { context in try context.all("Setting").compactMap { try $0.value(forKey: "value") as? String } }
        XCTAssertEqual(values.count, count - 10)
        XCTAssertEqual(values.filter { $0 == "changed" }.count, 2_190)
        XCTAssertEqual(try a.contents(), try b.contents())
        XCTAssertEqual(try a.contents(), try server.contents())
    }
}
