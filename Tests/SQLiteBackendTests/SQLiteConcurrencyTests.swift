import Foundation
@testable import SQLiteBackend
import StoreCore
import StoreTestSupport
import XCTest

/// The pool's readers see the last committed state while the writer is busy.
final class SQLiteConcurrencyTests: XCTestCase {
    func testFetchesOnOtherThreadsDoNotWaitForAWriteInProgress() throws {
        let stack = try SQLiteTestStore()
        try stack.savePosts(["committed"])
        let store = try stack.store
        let writing = DispatchSemaphore(value: 0)
        let readersDone = DispatchSemaphore(value: 0)
        let writerFinished = expectation(description: "writer finished")
        let readerCount = 2
        // A write that stays open until both readers have finished (or 10 s pass).
        Thread.detachNewThread {
            try? store.pool.write { connection in
                try connection.transaction {
                    try connection.execute("UPDATE ZPOST SET ZTITLE = 'uncommitted'")
                    for _ in 0..<readerCount { writing.signal() }
                    for _ in 0..<readerCount { _ = readersDone.wait(timeout: .now() + 10) }
                }
            }
            writerFinished.fulfill()
        }
        let titles = LockedTitles()
        let readersFinished = (0..<readerCount).map { expectation(description: "reader \($0)") }
        for index in 0..<readerCount {
            let context = stack.container.newBackgroundContext()
            context.perform {
                writing.wait()
                var request = FetchRequest<Post>()
                request.returnsObjectsAsFaults = false
                let fetched = (try? context.fetch(request))?.map(\.title) ?? ["fetch failed"]
                titles.append(contentsOf: fetched)
                readersDone.signal()
                readersFinished[index].fulfill()
            }
        }
        wait(for: readersFinished + [writerFinished], timeout: 30)
        XCTAssertEqual(titles.values, ["committed", "committed"], "readers saw the committed state without waiting")
        XCTAssertEqual(try stack.column("SELECT ZTITLE FROM ZPOST"), [.text("uncommitted")])
    }

    func testContextsOnSeveralThreadsSaveAndFetchTogether() throws {
        let stack = try SQLiteTestStore()
        let finished = (0..<4).map { expectation(description: "context \($0)") }
        let failures = LockedTitles()
        for index in 0..<4 {
            let context = stack.container.newBackgroundContext()
            context.perform {
                do {
                    for round in 0..<25 {
                        let post = try Post(context: context)
                        post.title = "\(index)-\(round)"
                        try context.save()
                        _ = try context.count(for: FetchRequest<Post>())
                    }
                } catch {
                    failures.append(contentsOf: ["\(error)"])
                }
                finished[index].fulfill()
            }
        }
        wait(for: finished, timeout: 60)
        XCTAssertEqual(failures.values, [])
        XCTAssertEqual(try stack.column("SELECT COUNT(DISTINCT ZTITLE) FROM ZPOST"), [.integer(100)])
    }
}

/// Strings collected from several threads.
private final class LockedTitles: @unchecked Sendable {
    // @unchecked: `storage` is only touched under `lock`.
    private let lock = NSLock()
    private var storage: [String] = []
    func append(contentsOf titles: [String]) { lock.lock(); storage += titles; lock.unlock() }
    var values: [String] { lock.lock(); defer { lock.unlock() }; return storage.sorted() }
}
