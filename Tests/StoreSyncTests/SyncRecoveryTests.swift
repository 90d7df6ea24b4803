import Foundation
import StoreCore
import StoreSync
import StoreTestSupport
import XCTest

/// Purged history, and syncs stopped between any two of their steps.
final class SyncRecoveryTests: SyncTestCase {
    func titles(_ store: SyncTestStore) throws -> [String] {
        try store.edit { context in try context.all("Note").map { try $0.value(forKey: "title") as? String ?? "" }.sorted() }
    }

    func insertNote(_ title: String, in store: SyncTestStore) throws {
        try store.edit { context in try context.insertNewObject(forEntityName: "Note").setValue(title, forKey: "title") }
    }

    /// The keys of the store's settings (objects with no relationship: new ones travel as rows).
    func settings(_ store: SyncTestStore) throws -> [String] {
        try store.edit { context in try context.all("Setting").map { try $0.value(forKey: "key") as? String ?? "" }.sorted() }
    }

    func testPurgedServerHistoryThrowsTokenExpiredAndResynchronizeRecovers() async throws {
        let server = try store("server"), a = try store("a"), b = try store("b", .xml)
        let engineA = try SyncEngine(local: a.container, server: server.container)
        let engineB = try SyncEngine(local: b.container, server: server.container)
        try insertNote("first", in: a)
        // Settings made together travel as one identity run; members of it are deleted below.
        try a.edit { context in
            for index in 0..<20 { try context.insertNewObject(forEntityName: "Setting").setValue("k\(index)", forKey: "key") }
        }
        try await engineA.sync()
        try await engineB.sync()

        // B goes offline with a change of its own; A deletes "first" and three settings, adds
        // more; the server purges its history.
        try insertNote("offline on b", in: b)
        try a.edit { context in
            try context.delete(XCTUnwrap(context.all("Note", "title == 'first'").first))
            for setting in try context.all("Setting", "key IN %@", ["k3", "k4", "k17"]) { context.delete(setting) }
        }
        try insertNote("second", in: a)
        try await engineA.sync()
        let context = server.container.newBackgroundContext()
        try context.performAndWait {
            let token = try XCTUnwrap(server.container.persistentStoreCoordinator.currentPersistentHistoryToken())
            _ = try context.execute(PersistentHistoryChangeRequest.deleteHistory(before: token))
        }

        do {
            try await engineB.sync()
            XCTFail("a client behind the purged history must not sync silently")
        } catch SyncError.Code.historyTokenExpired {
        }
        XCTAssertEqual(try titles(b), ["first", "offline on b"], "the failed sync changed nothing locally")

        try await engineB.resynchronize()
        try await engineA.sync()
        XCTAssertEqual(try titles(b), ["offline on b", "second"], "deleted on the server: gone; offline change: kept and pushed")
        XCTAssertEqual(try titles(a), ["offline on b", "second"])
        XCTAssertEqual(try b.edit { try $0.all("Setting").count }, 17, "members of a run deleted on the server: gone")
        XCTAssertEqual(try a.contents(), try b.contents())
        XCTAssertEqual(try a.contents(), try server.contents())
        try await engineB.sync()          // and ordinary syncs work again
    }

    /// Every step of a sync fails once, in turn — the in-process stand-in for a process killed
    /// there; the next sync completes, with nothing duplicated and nothing lost.
    func testASyncStoppedAtAnyStepLeavesBothStoresConsistentAndTheNextSyncCompletes() async throws {
        struct Injected: Error {}
        var point = 1
        while true {
            let directory = try ScratchDirectory()
            let server = try SyncTestStore(.sqlite, in: directory, name: "server", model: model)
            let a = try SyncTestStore(.sqlite, in: directory, name: "a", model: model)
            let b = try SyncTestStore(.xml, in: directory, name: "b", model: model)
            let engineA = try SyncEngine(local: a.container, server: server.container)
            let engineB = try SyncEngine(local: b.container, server: server.container)
            try insertNote("kept", in: a)
            try insertNote("to delete", in: a)
            try await engineA.sync()
            try await engineB.sync()
            // Three local transactions on A and one on B, then A's sync is stopped at step `point`.
            try a.edit { context in
                try context.insertNewObject(forEntityName: "Note").setValue("new on a", forKey: "title")
                try context.insertNewObject(forEntityName: "Setting").setValue("new on a", forKey: "key")
            }
            try a.edit { context in try XCTUnwrap(context.all("Note", "title == 'kept'").first).setValue(Int64(5), forKey: "rank") }
            try a.edit { context in try context.delete(XCTUnwrap(context.all("Note", "title == 'to delete'").first)) }
            try insertNote("new on b", in: b)
            try b.edit { context in try context.insertNewObject(forEntityName: "Setting").setValue("new on b", forKey: "key") }
            try await engineB.sync()

            let calls = LockedBox(0)
            let stopAt = point
            engineA.faultInjection.withLock { hook in
                hook = { _ in
                    if calls.mutate({ $0 += 1; return $0 }) == stopAt { throw Injected() }
                }
            }
            var stopped = false
            do {
                try await engineA.sync()
            } catch let error as SyncError where error.underlyingError is Injected {
                XCTAssertEqual(error.code, .storeFailed)
                stopped = true
            }
            engineA.faultInjection.withLock { $0 = nil }
            guard stopped else { break }          // `point` is past the last step: every step was tried

            // Meanwhile B changes the same attribute. Server order decides: if A's change reached
            // the server before the stop, B's comes later and wins; else A's retry comes later.
            let rank = { (store: SyncTestStore) in
                try store.edit { context in try context.all("Note", "title == 'kept'").first?.value(forKey: "rank") as? Int64 }
            }
            let expectedRank: Int64 = try rank(server) == 5 ? 9 : 5
            try await engineB.sync()
            try b.edit { context in try XCTUnwrap(context.all("Note", "title == 'kept'").first).setValue(Int64(9), forKey: "rank") }
            try await engineB.sync()

            try await engineA.sync()
            try await engineB.sync()
            try await engineA.sync()
            let expected = ["kept", "new on a", "new on b"]
            for (name, store) in [("a", a), ("b", b), ("server", server)] {
                XCTAssertEqual(try titles(store), expected, "stopped at step \(point): \(name)")
                XCTAssertEqual(try settings(store), ["new on a", "new on b"], "stopped at step \(point): \(name)")
                XCTAssertEqual(try rank(store), expectedRank, "stopped at step \(point): \(name), a change applied twice or lost")
            }
            XCTAssertEqual(try a.contents(), try server.contents(), "stopped at step \(point)")
            XCTAssertEqual(try b.contents(), try server.contents(), "stopped at step \(point)")
            point += 1
        }
        XCTAssertGreaterThan(point, 6, "the sync has at least six steps to stop at")
    }
}
