import Foundation
import StoreCore
import StoreSync
import StoreTestSupport
import XCTest

/// Live sync: saves on one client reach the other without anyone calling `sync()`.
final class LiveSyncTests: XCTestCase {
    /// Waits (up to a minute: a bound for a stuck test, not a speed check) until `condition` holds.
    func eventually(_ what: String, _ condition: () throws -> Bool) async throws {
        let deadline = Date().addingTimeInterval(60)
        while try !condition() {
            guard Date() < deadline else { return XCTFail("never happened: \(what)") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    func testSavesOnOneClientReachTheOtherInTheBackground() async throws {
        let directory = try ScratchDirectory()
        let model = try SyncTestModel.make()
        try await checkLiveSync(through: SyncTestStore(.sqlite, in: directory, name: "server", model: model, postsRemoteChanges: true), in: directory, model: model)
    }

    #if Postgres
    /// The server's commits arrive through `LISTEN`/`NOTIFY` (`STOWAGE_POSTGRES_URL`; skipped without it).
    func testSavesOnOneClientReachTheOtherThroughAPostgreSQLServer() async throws {
        let directory = try ScratchDirectory()
        let model = try SyncTestModel.make()
        guard let server = try SyncTestStore.postgres(name: "server", model: model, postsRemoteChanges: true) else {
            throw XCTSkip("PostgreSQL sync tests skipped: set STOWAGE_POSTGRES_URL (scripts/postgres-cluster start DIR prints one)")
        }
        try await checkLiveSync(through: server, in: directory, model: model)
    }
    #endif

    private func checkLiveSync(through server: SyncTestStore, in directory: ScratchDirectory, model: ManagedObjectModel) async throws {
        let a = try SyncTestStore(.sqlite, in: directory, name: "a", model: model)
        let b = try SyncTestStore(.xml, in: directory, name: "b", model: model)
        let engineA = try SyncEngine(local: a.container, server: server.container)
        let engineB = try SyncEngine(local: b.container, server: server.container)
        engineA.startLiveSync()
        engineB.startLiveSync()
        defer { engineA.stopLiveSync(); engineB.stopLiveSync() }

        try a.edit { context in try context.insertNewObject(forEntityName: "Note").setValue("from a", forKey: "title") }
        try await eventually("B has A's note") {
            try b.edit { context in try context.all("Note").compactMap { try $0.value(forKey: "title") as? String } } == ["from a"]
        }
        try b.edit { context in try XCTUnwrap(context.all("Note").first).setValue("edited on b", forKey: "title") }
        try await eventually("A has B's edit") {
            try a.edit { context in try context.all("Note").compactMap { try $0.value(forKey: "title") as? String } } == ["edited on b"]
        }
    }

    func testAFailedLiveSyncIsRetriedWithBackoffAndReported() async throws {
        let directory = try ScratchDirectory()
        let model = try SyncTestModel.make()
        let server = try SyncTestStore(.sqlite, in: directory, name: "server", model: model)
        let a = try SyncTestStore(.sqlite, in: directory, name: "a", model: model)
        var options = SyncEngine.Options()
        options.retryDelay = .milliseconds(10)
        let engine = try SyncEngine(local: a.container, server: server.container, options: options)
        struct ServerDown: Error {}
        let failuresLeft = LockedBox(2)
        engine.faultInjection.withLock { hook in
            hook = { _ in if failuresLeft.mutate({ $0 -= 1; return $0 >= 0 }) { throw ServerDown() } }
        }
        let events = engine.events()
        try a.edit { context in try context.insertNewObject(forEntityName: "Note").setValue("waiting", forKey: "title") }
        engine.startLiveSync()
        defer { engine.stopLiveSync() }

        var ended: [SyncEngine.Event] = []
        for await event in events where event.endDate != nil {
            ended.append(event)
            if event.type == .import && event.succeeded { break }
        }
        XCTAssertEqual(ended.filter { !$0.succeeded }.count, 2, "two failed attempts reported")
        XCTAssertTrue(ended.filter { !$0.succeeded }.allSatisfy { ($0.error as? SyncError)?.underlyingError is ServerDown },
                      "reported as storeFailed with the store's error beneath")
        XCTAssertEqual(try server.edit { context in try context.all("Note").count }, 1, "the retry pushed the note once")
    }
}
