import Foundation
import SQLiteBackend
import StoreCore
import StoreTestSupport
import XCTest

/// Two coordinators on one SQLite file, as two processes would have: while four contexts of the
/// first save from several threads, the second's remote-change watcher posts
/// `persistentStoreRemoteChange`, and a context of the second refetches on each notification and
/// ends up seeing every entry. (ThreadSanitizer runs this too: the watcher's thread, the savers'
/// queues and the notification observers all meet here.)
final class SQLiteRemoteChangeTests: XCTestCase {
    func testAWatcherPostsRemoteChangesWhileOtherThreadsSave() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("Shared.sqlite")
        let writer = try container(at: url)
        let reader = try container(at: url)
        let readerCoordinator = reader.persistentStoreCoordinator

        let notifications = LockedBox(0)
        let seen = LockedBox(0)
        let readerContext = reader.newBackgroundContext()
        let observer = NotificationCenter.default.addObserver(forName: .persistentStoreRemoteChange, object: readerCoordinator, queue: nil) { _ in
            notifications.mutate { $0 += 1 }
            readerContext.perform {
                let count = (try? readerContext.count(for: FetchRequest<ManagedObject>(entityName: "Entry"))) ?? -1
                seen.mutate { $0 = max($0, count) }
            }
        }
        defer { NotificationCenter.default.removeObserver(observer) }

        let savers = DispatchGroup()
        let failures = LockedBox<[String]>([])
        for side in 0..<4 {
            savers.enter()
            DispatchQueue.global().async {
                defer { savers.leave() }
                let context = writer.newBackgroundContext()
                context.performAndWait {
                    do {
                        for save in 0..<25 {
                            let entry = try context.insertNewObject(forEntityName: "Entry")
                            try entry.setValue(Int64(side * 1_000 + save), forKey: "number")
                            try context.save()
                        }
                    } catch {
                        failures.mutate { $0.append("saver \(side): \(error)") }
                    }
                }
            }
        }
        savers.wait()
        XCTAssertEqual(failures.value, [])

        let deadline = Date().addingTimeInterval(30)
        while seen.value < 100 && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        XCTAssertGreaterThan(notifications.value, 0, "the second coordinator heard of the first one's commits")
        XCTAssertEqual(seen.value, 100, "a refetch after a notification sees every entry")
    }

    private func container(at url: URL) throws -> PersistentContainer {
        SQLiteStore.register()
        let container = PersistentContainer(name: "Shared", managedObjectModel: try SaveLoopStore.makeModel())
        var description = PersistentStoreDescription(url: url)
        description.isHistoryTrackingEnabled = true
        description.setOption(true, forKey: .remoteChangeNotificationPost)
        container.persistentStoreDescriptions = [description]
        try container.loadPersistentStores()
        return container
    }
}
