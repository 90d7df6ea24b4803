import Foundation
import StoreCore
import StoreTestSupport
import XCTest

/// Remote change notifications: another process commits to the store file, and this process is
/// told, with the new history token for SQLite.
final class RemoteChangeTests: XCTestCase {
    /// Runs the child once (it saves one counter increment) and returns its process ID.
    private func saveInAnotherProcess(_ backend: StoreBackend, at url: URL) throws -> Int32 {
        let child = Process()
        child.executableURL = try builtTool("stowage-save-loop")
        child.arguments = [backend.type.rawValue, url.path, "--once"]
        child.standardOutput = FileHandle.nullDevice
        try child.run()
        let pid = child.processIdentifier
        child.waitUntilExit()
        XCTAssertEqual(child.terminationStatus, 0, "\(backend): the child's save failed")
        return pid
    }

    func testACommitByAnotherProcessPostsARemoteChangeNotification() throws {
        _ = try builtTool("stowage-save-loop")  // skips when it is not built
        for backend in [StoreBackend.sqlite, .xml] {
            let directory = try TemporaryDirectory()
            let url = directory.file("Remote.\(backend.fileExtension ?? "store")")
            let container = try saveLoopContainer(backend, at: url)
            let coordinator = container.persistentStoreCoordinator
            let before = try coordinator.currentPersistentHistoryToken()
            let notified = expectation(description: "\(backend): remote change")
            let received = LockedBox<Notification?>(nil)
            // Every commit notifies — the child's key allocation too, before its save commits —
            // so for SQLite wait for the notification carrying a newer token.
            let wantsToken = backend.type == .sqlite
            let observer = NotificationCenter.default.addObserver(forName: .persistentStoreRemoteChange, object: coordinator, queue: nil) { note in
                guard received.value == nil else { return }
                if wantsToken, (note.historyToken.map { token in before.map { token > $0 } ?? true } ?? false) == false { return }
                received.value = note
                notified.fulfill()
            }
            let pid = try saveInAnotherProcess(backend, at: url)
            wait(for: [notified], timeout: 10)
            NotificationCenter.default.removeObserver(observer)
            let note = try XCTUnwrap(received.value, "\(backend)")
            XCTAssertEqual(note.userInfo?["storeUUID"] as? String, coordinator.persistentStores.first?.identifier, "\(backend)")
            guard backend.type == .sqlite else { continue }
            let token = try XCTUnwrap(note.historyToken, "\(backend): SQLite notifications carry the new token")
            XCTAssertGreaterThan(token, before ?? PersistentHistoryToken(storeIdentifier: token.storeIdentifier, transactionNumber: 0), "\(backend)")
            let context = container.newBackgroundContext()
            let transactions = try context.performAndWait { try context.execute(PersistentHistoryChangeRequest.fetchHistory(after: before)).transactions ?? [] }
            // The child saves twice (its first run makes the counter); the watcher may have seen
            // either commit first, so the notified token is one of the child's transactions.
            let notifiedTransaction = try XCTUnwrap(transactions.first { $0.token == token }, "\(backend): the notified token is in the history")
            XCTAssertEqual(notifiedTransaction.processID, pid, "\(backend): the transaction names the other process")
            XCTAssertEqual(transactions.last?.processID, pid, "\(backend)")
        }
    }
}
