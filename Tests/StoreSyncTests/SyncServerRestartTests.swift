#if Postgres  // the PostgreSQL store is built only with the Postgres package trait (Package.swift)
import Foundation
import StoreCore
import StoreSync
import StoreTestSupport
import XCTest

/// The PostgreSQL server restarts in the middle of syncs (`pg_ctl restart -m immediate` on the
/// cluster of `STOWAGE_POSTGRES_URL`): a sync cut off fails with `storeFailed` and changes
/// nothing it did not finish, the next one completes, and no change is lost or applied twice.
final class SyncServerRestartTests: SyncTestCase {
    /// A PostgreSQL server store on a cluster this test may restart, or a skip.
    func restartableServer(postsRemoteChanges: Bool = false) throws -> SyncTestStore {
        guard PostgresTestCluster.directory != nil, let server = try SyncTestStore.postgres(name: "server", model: model, postsRemoteChanges: postsRemoteChanges) else {
            throw XCTSkip("PostgreSQL sync tests skipped: set STOWAGE_POSTGRES_URL to a cluster of scripts/postgres-cluster (scripts/postgres-cluster start DIR prints one)")
        }
        return server
    }

    func titles(_ store: SyncTestStore) throws -> [String] {
        try store.edit { context in try context.all("Note").map { try $0.value(forKey: "title") as? String ?? "" }.sorted() }
    }

    /// The server restarts just before each step of a sync in turn, and the step runs on: the
    /// store reconnects, so the sync completes or fails as `storeFailed`; the next one completes.
    func testARestartBeforeAnyStepLeavesTheStoresConsistentAndTheNextSyncCompletes() async throws {
        for step in SyncStep.allCases {
            let server = try restartableServer()
            let a = try store("a-\(step)"), b = try store("b-\(step)", .xml)
            let engineA = try SyncEngine(local: a.container, server: server.container)
            let engineB = try SyncEngine(local: b.container, server: server.container)
            try a.edit { context in
                let folder = try context.insertNewObject(forEntityName: "Folder")
                try folder.setValue("inbox", forKey: "name")
                for title in ["kept", "to delete"] {
                    let note = try context.insertNewObject(forEntityName: "Note")
                    try note.setValue(title, forKey: "title")
                    try note.setValue(folder, forKey: "folder")
                }
            }
            try await engineA.sync()
            try await engineB.sync()
            // A edits offline; its sync meets a restart before `step`.
            try a.edit { context in try context.insertNewObject(forEntityName: "Note").setValue("new on a", forKey: "title") }
            try a.edit { context in try XCTUnwrap(context.all("Note", "title == 'kept'").first).setValue(Int64(5), forKey: "rank") }
            try a.edit { context in try context.delete(XCTUnwrap(context.all("Note", "title == 'to delete'").first)) }
            try b.edit { context in try context.insertNewObject(forEntityName: "Note").setValue("new on b", forKey: "title") }

            let restarted = LockedBox(false)
            engineA.faultInjection.withLock { hook in
                hook = { current in
                    guard current == step, !restarted.value else { return }
                    restarted.value = true
                    try PostgresTestCluster.restart("immediate")
                }
            }
            do {
                try await engineA.sync()
            } catch SyncError.Code.storeFailed {
                // The server went away mid-sync: a typed error, to be retried.
            }
            engineA.faultInjection.withLock { $0 = nil }
            XCTAssertTrue(restarted.value, "the sync reached step \(step)")

            try await engineA.syncRetrying()
            try await engineB.syncRetrying()
            try await engineA.syncRetrying()
            for (name, store) in [("a", a), ("b", b), ("server", server)] {
                XCTAssertEqual(try titles(store), ["kept", "new on a", "new on b"], "restart before \(step): \(name)")
            }
            XCTAssertEqual(try a.contents(), try server.contents(), "restart before \(step)")
            XCTAssertEqual(try b.contents(), try server.contents(), "restart before \(step)")
        }
    }

    /// Random scripts as in ``SyncConvergenceTests`` while the server restarts at random moments
    /// (as often as it can): syncs fail as `storeFailed` and are left for later; after the final
    /// rounds every store holds the same objects, each once.
    func testStoresConvergeWhileTheServerRestartsAtRandomMoments() async throws {
        _ = try restartableServer()
        let seeds = UInt64(ProcessInfo.processInfo.environment["STOWAGE_SYNC_RESTART_SEEDS"].flatMap(Int.init) ?? 12)
        var restarts = 0
        var failedSyncs = 0
        for seed in 0..<seeds {
            let failure = try await SyncConvergenceTests.check(
                seed: 1000 + seed, in: directory, model: model, server: { try XCTUnwrap(SyncTestStore.postgres(name: "server-\(seed)", model: model)) },
                length: 40,
                syncing: { engine in
                    do { try await engine.sync() } catch SyncError.Code.storeFailed { failedSyncs += 1 }
                },
                around: { script in
                    let restarter = Restarter()
                    restarter.start()
                    defer { restarts += restarter.stop() }
                    try await script()
                    if let error = restarter.error { XCTFail("restarting the server failed: \(error)") }
                })
            if let failure { XCTFail(failure) }
        }
        XCTAssertGreaterThan(restarts, 0, "the server restarted during the scripts")
        XCTAssertGreaterThan(failedSyncs, 0, "restarts cut syncs off")
    }

    /// Live sync through a server that restarts: the failed syncs are retried with backoff, the
    /// listener comes back, and each client still sees the other's saves without polling.
    func testLiveSyncCarriesOnAcrossAServerRestart() async throws {
        let server = try restartableServer(postsRemoteChanges: true)
        let a = try store("a"), b = try store("b", .xml)
        var options = SyncEngine.Options()
        options.retryDelay = .milliseconds(100)
        options.maximumRetryDelay = .seconds(1)
        let engineA = try SyncEngine(local: a.container, server: server.container, options: options)
        let engineB = try SyncEngine(local: b.container, server: server.container, options: options)
        engineA.startLiveSync()
        engineB.startLiveSync()
        defer { engineA.stopLiveSync(); engineB.stopLiveSync() }

        try a.edit { context in try context.insertNewObject(forEntityName: "Note").setValue("before", forKey: "title") }
        try await eventually("B has A's note") { try titles(b) == ["before"] }
        try PostgresTestCluster.restart("immediate")
        try a.edit { context in try context.insertNewObject(forEntityName: "Note").setValue("after", forKey: "title") }
        try await eventually("B has A's note saved after the restart") { try titles(b) == ["after", "before"] }
        try b.edit { context in try XCTUnwrap(context.all("Note", "title == 'after'").first).setValue("edited on b", forKey: "title") }
        try await eventually("A has B's edit") { try titles(a) == ["before", "edited on b"] }
    }

    /// Waits (up to two minutes: a bound for a stuck test, not a speed check) until `condition` holds.
    func eventually(_ what: String, _ condition: () throws -> Bool) async throws {
        let deadline = Date().addingTimeInterval(120)
        while try !condition() {
            guard Date() < deadline else { return XCTFail("never happened: \(what)") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }
}

/// Restarts the test cluster (`immediate`) again and again, a random 0–300 ms apart, on a thread
/// of its own until stopped.
private final class Restarter: @unchecked Sendable {
    // @unchecked: `running`, `finished`, `count` and `failure` are only touched under `lock`.
    private let lock = NSCondition()
    private var running = false
    private var finished = false
    private var count = 0
    private var failure: (any Error)?

    /// Why a restart failed, if one did (restarting stops then).
    var error: (any Error)? { lock.withLock { failure } }

    func start() {
        lock.withLock { running = true }
        Thread.detachNewThread { [self] in
            var random = SystemRandomNumberGenerator()
            while lock.withLock({ running }) {
                Thread.sleep(forTimeInterval: Double.random(in: 0...0.3, using: &random))
                // Only restarts while the script runs count: one after it would say nothing of it.
                guard lock.withLock({ running }) else { break }
                do {
                    try PostgresTestCluster.restart("immediate")
                    lock.withLock { count += 1 }
                } catch {
                    lock.withLock { failure = error; running = false }
                }
            }
            lock.withLock { finished = true; lock.broadcast() }
        }
    }

    /// Stops restarting, waits for the last restart to end, and returns how many there were
    /// while the script ran.
    func stop() -> Int {
        lock.withLock {
            running = false
            while !finished { lock.wait() }
            return count
        }
    }
}
#endif
