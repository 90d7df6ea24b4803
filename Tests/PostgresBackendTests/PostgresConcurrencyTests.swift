#if Postgres  // the PostgreSQL store is built only with the Postgres package trait (Package.swift)
import Foundation
import PostgresBackend
import PostgresNIO
import StoreCore
import StoreTestSupport
import XCTest

/// Two coordinators on separate connections — as two processes or machines would be — sharing
/// one PostgreSQL store.
final class PostgresConcurrencyTests: XCTestCase {
    private func container(schema: String, notifications: Bool = false) throws -> PersistentContainer {
        PostgresStore.register()
        let container = PersistentContainer(name: "Blog", managedObjectModel: try BlogModel.make())
        var description = try PostgresTestServer.description(schema: schema)
        description.isHistoryTrackingEnabled = true
        if notifications { description.setOption(true, forKey: .remoteChangeNotificationPost) }
        container.persistentStoreDescriptions = [description]
        try container.loadPersistentStores()
        return container
    }

    func testConcurrentSaversNeverShareAKeyOrLoseAnIncrement() throws {
        let schema = PostgresTestServer.freshSchema("conc")
        let containers = [try container(schema: schema), try container(schema: schema)]
        let counterID = try containers[0].viewContext.performAndWait { () throws -> ManagedObjectID in
            let post = try Post(context: containers[0].viewContext)
            post.title = "Counter"
            try containers[0].viewContext.save()
            return post.objectID
        }
        let failures = LockedBox<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { side in
            let context = containers[side].newBackgroundContext()
            context.performAndWait {
                do {
                    for round in 0..<25 {
                        for n in 0..<4 {
                            let post = try Post(context: context)
                            post.title = "side \(side) round \(round) #\(n)"
                        }
                        // Increment the shared counter; a conflict with the other side is
                        // refused, and the increment is retried on fresh values.
                        while true {
                            let counter = try XCTUnwrap(context.existingObject(with: counterID) as? Post)
                            counter.views += 1
                            do {
                                try context.save()
                                break
                            } catch is MergeConflictError {
                                context.refresh(counter, mergeChanges: false)
                            }
                        }
                    }
                } catch {
                    failures.value.append("side \(side): \(error)")
                }
            }
        }
        XCTAssertEqual(failures.value, [])
        let reader = try container(schema: schema).newBackgroundContext()
        try reader.performAndWait {
            let posts = try reader.fetch(FetchRequest<Post>())
            XCTAssertEqual(posts.count, 201, "every insert of both sides is there once")
            XCTAssertEqual(Set(posts.map(\.objectID)).count, 201, "no two objects share a key")
            let counter = try XCTUnwrap(reader.existingObject(with: counterID) as? Post)
            XCTAssertEqual(counter.views, 50, "no increment was lost")
        }
    }

    func testASaveThroughOneCoordinatorNotifiesTheOther() throws {
        let schema = PostgresTestServer.freshSchema("notify")
        let listening = try container(schema: schema, notifications: true)
        let writing = try container(schema: schema)
        let coordinator = listening.persistentStoreCoordinator
        let notified = expectation(description: "remote change")
        notified.assertForOverFulfill = false
        let observer = NotificationCenter.default.addObserver(forName: .persistentStoreRemoteChange, object: coordinator, queue: nil) { note in
            if note.historyToken != nil { notified.fulfill() }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let context = writing.newBackgroundContext()
        try context.performAndWait {
            let post = try Post(context: context)
            post.title = "From elsewhere"
            try context.save()
        }
        wait(for: [notified], timeout: 10)
        let view = listening.newBackgroundContext()
        try view.performAndWait {
            XCTAssertEqual(try view.fetch(FetchRequest<Post>()).map(\.title), ["From elsewhere"])
        }
    }

    func testAStoreOfAnotherModelIsRefusedAndLeftAlone() throws {
        let schema = PostgresTestServer.freshSchema("model")
        _ = try container(schema: schema)
        let other = PersistentContainer(name: "Quakes", managedObjectModel: try QuakeModel.make())
        other.persistentStoreDescriptions = [try PostgresTestServer.description(schema: schema)]
        XCTAssertThrowsError(try other.loadPersistentStores()) { error in
            XCTAssertEqual((error as? StoreError)?.code, .incompatibleModel, "\(error)")
        }
        XCTAssertNoThrow(try container(schema: schema), "the store still opens with its own model")
    }

    func testBadURLSettingsAreTypedErrors() throws {
        let url = try PostgresTestServer.requireURL()
        for (setting, value) in [("schema", "1bad"), ("pool", "0"), ("sslmode", "sometimes")] {
            var components = try XCTUnwrap(URLComponents(url: url, resolvingAgainstBaseURL: false))
            components.queryItems = (components.queryItems ?? []) + [URLQueryItem(name: setting, value: value)]
            let container = PersistentContainer(name: "Blog", managedObjectModel: try BlogModel.make())
            container.persistentStoreDescriptions = [PersistentStoreDescription(url: try XCTUnwrap(components.url))]
            XCTAssertThrowsError(try container.loadPersistentStores(), setting) { error in
                XCTAssertEqual((error as? StoreError)?.code, .invalidOption, "\(setting): \(error)")
            }
        }
    }

    func testACallFromAnEventLoopThreadIsRefusedInsteadOfStallingTheLoop() throws {
        let schema = PostgresTestServer.freshSchema("loop")
        let container = try container(schema: schema)
        let store = try XCTUnwrap(container.persistentStoreCoordinator.persistentStores.first)
        let outcome = try MultiThreadedEventLoopGroup.singleton.next().submit { () -> String in
            do {
                _ = try store.execute(StoreFetchRequest(entityName: "Post", resultType: .count))
                return "answered"
            } catch let error as StoreError {
                return "refused: \(error.message)"
            } catch {
                return "failed: \(error)"
            }
        }.wait()
        XCTAssertTrue(outcome.hasPrefix("refused") && outcome.contains("event-loop thread"), outcome)
        XCTAssertNoThrow(try store.execute(StoreFetchRequest(entityName: "Post", resultType: .count)), "the same call works off the loop")
    }

    /// A store whose last reference goes in work an event loop runs closes its sessions there
    /// without waiting, and without freeing a connection still open (postgres-nio traps on that
    /// in debug builds); the server keeps serving the next store.
    func testAStoreLetGoOnAnEventLoopThreadClosesItsSessions() throws {
        let schema = PostgresTestServer.freshSchema("letgo")
        final class Holder: @unchecked Sendable {
            // @unchecked: set by the test thread, then let go on the loop after it.
            var store: (any PersistentStore)?
        }
        let holder = Holder()
        do {
            let container = try container(schema: schema)
            let store = try XCTUnwrap(container.persistentStoreCoordinator.persistentStores.first)
            // A fetch leaves an open session in the store's pool.
            XCTAssertNoThrow(try store.execute(StoreFetchRequest(entityName: "Post", resultType: .count)))
            holder.store = store
        }
        try MultiThreadedEventLoopGroup.singleton.next().submit { holder.store = nil }.wait()
        let next = try container(schema: schema)
        let count = try next.viewContext.performAndWait { try next.viewContext.count(for: FetchRequest<ManagedObject>(entityName: "Post")) }
        XCTAssertEqual(count, 0)
    }
}
#endif
