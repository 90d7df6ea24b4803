#if Postgres  // the PostgreSQL store is built only with the Postgres package trait (Package.swift)
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import PostgresBackend
import StoreCore
import StoreTestSupport
import XCTest

/// The store outlives its server: a restart (`fast` or `immediate`), a terminated session of the
/// pool or of the listener. Every call returns — a typed error while the server is away, success
/// once it is back — the same process goes on saving, no acknowledged save is lost, and remote
/// change notifications resume. Each scenario runs on a thread of its own and is waited for with
/// a generous deadline, so a hang is a failure, not a stuck test run.
final class PostgresServerLossTests: XCTestCase {
    /// A container on a fresh schema, with a short connect timeout so an outage ends calls soon.
    private static func container(schema: String, history: Bool = true, notifications: Bool = false) throws -> PersistentContainer {
        PostgresStore.register()
        let container = PersistentContainer(name: "Blog", managedObjectModel: try BlogModel.make())
        var description = try PostgresTestServer.description(schema: schema)
        description.timeout = 20
        description.isHistoryTrackingEnabled = history
        if notifications { description.setOption(true, forKey: .remoteChangeNotificationPost) }
        container.persistentStoreDescriptions = [description]
        try container.loadPersistentStores()
        return container
    }

    /// Runs `body` on a thread of its own and fails if it has not returned within `seconds`.
    private func returns(within seconds: TimeInterval, _ what: String, _ body: @escaping @Sendable () throws -> Void) {
        let done = expectation(description: what)
        let failure = LockedBox<(any Error)?>(nil)
        Thread.detachNewThread {
            do { try body() } catch { failure.value = error }
            done.fulfill()
        }
        wait(for: [done], timeout: seconds)
        if let error = failure.value { XCTFail("\(what): \(error)") }
    }

    /// Whether `error` is what a call made while the server is away may throw.
    private static func isOutage(_ error: any Error) -> Bool {
        guard let error = error as? StoreError else { return false }
        return error.code == .serverUnavailable || error.code == .commitOutcomeUnknown
    }

    private static func titles(in container: PersistentContainer) throws -> [String] {
        let context = container.newBackgroundContext()
        return try context.performAndWait { try context.fetch(FetchRequest<Post>()).map(\.title) }
    }

    // MARK: The pool

    /// The reproduction: save, let the connection idle, end its session, save again.
    func testASaveAfterTheServerEndedAnIdleConnectionReturnsAndTheNextSucceeds() throws {
        let schema = PostgresTestServer.freshSchema("idle")
        let container = try Self.container(schema: schema)
        try PostgresTestServer.requireCluster()
        returns(within: 120, "saves around a terminated session") {
            let context = container.newBackgroundContext()
            try context.performAndWait {
                let first = try Post(context: context)
                first.title = "before"
                try context.save()
            }
            Thread.sleep(forTimeInterval: 0.5)
            XCTAssertGreaterThan(try PostgresTestCluster.terminate(applicationName: "stowage \(schema)"), 0)
            Thread.sleep(forTimeInterval: 0.2)
            try context.performAndWait {
                let second = try Post(context: context)
                second.title = "after"
                do {
                    try context.save()
                } catch {
                    XCTAssertTrue(Self.isOutage(error), "\(error)")
                    try context.save()   // the context kept its changes
                }
            }
        }
        XCTAssertEqual(try Self.titles(in: container).sorted(), ["after", "before"])
    }

    func testASaveLoopGoesOnThroughAFastRestart() throws {
        try checkSaveLoop { try PostgresTestCluster.restart("fast") }
    }

    func testASaveLoopGoesOnThroughAnImmediateRestart() throws {
        try checkSaveLoop { try PostgresTestCluster.restart("immediate") }
    }

    func testASaveLoopGoesOnWhenItsSessionsAreTerminated() throws {
        try checkSaveLoop(schemaPrefix: "term") { schema in
            for _ in 0..<3 {
                try PostgresTestCluster.terminate(applicationName: "stowage \(schema)")
                Thread.sleep(forTimeInterval: 0.1)
            }
        }
    }

    private func checkSaveLoop(schemaPrefix: String = "restart", _ disrupt: @escaping @Sendable () throws -> Void) throws {
        try checkSaveLoop(schemaPrefix: schemaPrefix) { (_: String) in try disrupt() }
    }

    /// Saves one post a call on a background context while `disrupt` runs once after ten saves:
    /// every call returns, errors are typed, saving works after, and every acknowledged post is
    /// in the store exactly once.
    private func checkSaveLoop(schemaPrefix: String, _ disrupt: @escaping @Sendable (String) throws -> Void) throws {
        let schema = PostgresTestServer.freshSchema(schemaPrefix)
        let container = try Self.container(schema: schema)
        try PostgresTestServer.requireCluster()
        let acknowledged = LockedBox<[String]>([])
        let outcome = LockedBox<(errors: [String], successesAfter: Int)>(([], 0))
        returns(within: 240, "the save loop") {
            let context = container.newBackgroundContext()
            var disrupted = false
            for round in 0..<200 {
                if round == 10 {
                    try disrupt(schema)
                    disrupted = true
                }
                let saved: Bool = context.performAndWait {
                    do {
                        let post = try Post(context: context)
                        post.title = "post \(round)"
                        try context.save()
                        return true
                    } catch {
                        if !Self.isOutage(error) { outcome.value.errors.append("round \(round): \(error)") }
                        context.rollback()
                        return false
                    }
                }
                if saved {
                    acknowledged.value.append("post \(round)")
                    if disrupted { outcome.value.successesAfter += 1 }
                }
                if outcome.value.successesAfter >= 20 { break }
            }
        }
        XCTAssertEqual(outcome.value.errors, [], "only serverUnavailable or commitOutcomeUnknown while the server is away")
        XCTAssertGreaterThanOrEqual(outcome.value.successesAfter, 20, "the same process saves again once the server is back")
        let stored = try Self.titles(in: container)
        XCTAssertEqual(stored.count, Set(stored).count, "no post was written twice")
        XCTAssertEqual(Set(acknowledged.value).subtracting(stored), [], "no acknowledged save was lost")
    }

    func testAFetchLoopGoesOnThroughARestart() throws {
        let schema = PostgresTestServer.freshSchema("fetch")
        let container = try Self.container(schema: schema)
        try PostgresTestServer.requireCluster()
        let context = container.newBackgroundContext()
        try context.performAndWait {
            for n in 0..<5 { try Post(context: context).title = "post \(n)" }
            try context.save()
        }
        let outcome = LockedBox<(errors: [String], fetchesAfter: Int)>(([], 0))
        returns(within: 240, "the fetch loop") {
            for round in 0..<200 {
                if round == 10 { try PostgresTestCluster.restart("immediate") }
                context.performAndWait {
                    do {
                        let count = try context.fetch(FetchRequest<Post>()).count
                        if count != 5 { outcome.value.errors.append("round \(round): \(count) posts") }
                        if round > 10 { outcome.value.fetchesAfter += 1 }
                    } catch {
                        if !Self.isOutage(error) { outcome.value.errors.append("round \(round): \(error)") }
                    }
                }
                if outcome.value.fetchesAfter >= 20 { break }
            }
        }
        XCTAssertEqual(outcome.value.errors, [])
        XCTAssertGreaterThanOrEqual(outcome.value.fetchesAfter, 20)
    }

    /// A session ended while the server runs its `COMMIT` (a deferred trigger that sleeps holds
    /// it there): the store asks the server what became of the transaction — rolled back — and
    /// says nothing was saved; the context keeps its changes and saves them once, on retry.
    func testASaveCutOffDuringCommitIsReportedAsNotSavedAndSavesOnceOnRetry() throws {
        let schema = PostgresTestServer.freshSchema("commit")
        let container = try Self.container(schema: schema)
        try PostgresTestCluster.sql("""
            CREATE FUNCTION \(schema).slow_commit() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN IF NEW.ZTITLE = 'slow' THEN PERFORM pg_sleep(30); END IF; RETURN NULL; END $$;
            CREATE CONSTRAINT TRIGGER slow_commit AFTER INSERT ON \(schema).ZPOST DEFERRABLE INITIALLY DEFERRED
            FOR EACH ROW EXECUTE FUNCTION \(schema).slow_commit();
            """)
        let context = container.newBackgroundContext()
        let firstError = LockedBox<(any Error)?>(nil)
        let saving = expectation(description: "the first save returns")
        Thread.detachNewThread {
            context.performAndWait {
                do {
                    try Post(context: context).title = "slow"
                    try context.save()
                } catch {
                    firstError.value = error
                }
            }
            saving.fulfill()
        }
        let committing = expectation(for: NSPredicate { _, _ in
            (try? PostgresTestCluster.sql(
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'stowage \(schema)' AND query = 'COMMIT' AND state = 'active'")) == "1"
        }, evaluatedWith: nil)
        wait(for: [committing], timeout: 60)
        XCTAssertEqual(try PostgresTestCluster.terminate(applicationName: "stowage \(schema)"), 1)
        wait(for: [saving], timeout: 60)
        let code = (firstError.value as? StoreError)?.code
        XCTAssertEqual(code, .serverUnavailable, "\(String(describing: firstError.value))")

        try PostgresTestCluster.sql("DROP TRIGGER slow_commit ON \(schema).ZPOST")
        returns(within: 60, "the retried save") {
            try context.performAndWait { try context.save() }
        }
        XCTAssertEqual(try Self.titles(in: container), ["slow"])
    }

    // MARK: The listener

    func testNotificationsResumeAfterTheListenerSessionIsTerminated() throws {
        try checkNotificationsResume { schema in
            XCTAssertEqual(try PostgresTestCluster.terminate(applicationName: "stowage \(schema) listener"), 1)
        }
    }

    func testNotificationsResumeAfterARestart() throws {
        try checkNotificationsResume { _ in try PostgresTestCluster.restart("fast") }
    }

    /// A coordinator listening for remote changes: after `disrupt`, it posts one notification when
    /// its listener is back, and then one for another coordinator's save.
    private func checkNotificationsResume(_ disrupt: (String) throws -> Void) throws {
        let schema = PostgresTestServer.freshSchema("listen")
        let listening = try Self.container(schema: schema, notifications: true)
        let writing = try Self.container(schema: schema)
        try PostgresTestServer.requireCluster()
        let received = LockedBox(0)
        let observer = NotificationCenter.default.addObserver(
            forName: .persistentStoreRemoteChange, object: listening.persistentStoreCoordinator, queue: nil
        ) { _ in received.value += 1 }
        defer { NotificationCenter.default.removeObserver(observer) }

        try disrupt(schema)
        let reconnected = expectation(for: NSPredicate { _, _ in received.value >= 1 }, evaluatedWith: nil)
        wait(for: [reconnected], timeout: 60)

        let before = received.value
        Thread.sleep(forTimeInterval: 0.2)
        returns(within: 60, "a save through the other coordinator") {
            let context = writing.newBackgroundContext()
            try context.performAndWait {
                try Post(context: context).title = "seen elsewhere"
                try context.save()
            }
        }
        let notified = expectation(for: NSPredicate { _, _ in received.value > before }, evaluatedWith: nil)
        wait(for: [notified], timeout: 60)
    }

    // MARK: Loading and opening

    /// A server that accepts connections and never answers: loading fails after one connect
    /// timeout — one connection attempt, not a second after a swallowed failure.
    func testLoadingFromAServerThatNeverAnswersConnectsOnce() throws {
        let silent = try SilentServer()
        defer { silent.stop() }
        PostgresStore.register()
        let container = PersistentContainer(name: "Blog", managedObjectModel: try BlogModel.make())
        var description = PersistentStoreDescription(url: URL(string: "postgres://stowage@127.0.0.1:\(silent.port)/postgres?connect_timeout=1")!)
        description.isHistoryTrackingEnabled = true
        container.persistentStoreDescriptions = [description]
        returns(within: 60, "loading") {
            XCTAssertThrowsError(try container.loadPersistentStores()) { error in
                XCTAssertEqual((error as? StoreError)?.code, .serverUnavailable, "\(error)")
            }
        }
        XCTAssertEqual(silent.accepted, 1, "one connection for the whole load")
    }

    /// Opening a store with history takes no lock on its tables: a client in the middle of a save
    /// (here a session holding an insert into the history table open) does not hold it up.
    func testOpeningAStoreWithHistoryDoesNotWaitForAnotherClientsTransaction() throws {
        let schema = PostgresTestServer.freshSchema("open")
        _ = try Self.container(schema: schema)   // creates the store and its history tables
        let session = try PostgresTestCluster.openSession()
        defer {
            session.send("ROLLBACK;\n")
            session.close()
        }
        session.send("""
            BEGIN;
            INSERT INTO \(schema).Z_HISTORYTRANSACTION (ZTIMESTAMP, ZPROCESSID) VALUES (0, 0);
            LOCK TABLE \(schema).Z_HISTORYCHANGE IN ROW EXCLUSIVE MODE;

            """)
        // The session holds its locks once the insert is visible to the catalog's lock view.
        let locked = expectation(for: NSPredicate { _, _ in
            (try? PostgresTestCluster.sql("SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE c.relname = 'z_historychange' AND l.granted")) != "0"
        }, evaluatedWith: nil)
        wait(for: [locked], timeout: 30)
        returns(within: 60, "opening the store again") {
            let again = try Self.container(schema: schema)
            XCTAssertEqual(again.persistentStoreCoordinator.persistentStores.count, 1)
        }
    }
}

/// A TCP server on the loopback interface that accepts connections and never says anything.
private final class SilentServer: @unchecked Sendable {
    // @unchecked: `clients` and `count` are only touched while `lock` is held; `socket` is set once.
    let port: Int
    private let socket: Int32
    private let lock = NSLock()
    private var clients: [Int32] = []
    private var count = 0

    init() throws {
        let listener = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        socket = listener
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) == 0 && getsockname(listener, $0, &length) == 0 }
        }
        guard bound, listen(listener, 8) == 0 else { throw POSIXError(.EADDRINUSE) }
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in
            while true {
                let client = accept(listener, nil, nil)
                guard client >= 0 else { return }
                lock.withLock {
                    clients.append(client)
                    count += 1
                }
            }
        }
    }

    var accepted: Int { lock.withLock { count } }

    func stop() {
        shutdown(socket, Int32(SHUT_RDWR))
        close(socket)
        lock.withLock { for client in clients { close(client) } }
    }
}
#endif
