import Foundation
import StoreCore
import StoreTestSupport
import XCTest

/// Two OS processes saving to one SQLite store at once, each inserting entries and incrementing
/// one shared counter in its own saves (the `--increments` mode of `stowage-save-loop`): a
/// conflict is refused as a merge conflict and the increment retried on fresh values, so no
/// increment and no entry is lost and no two processes' objects share a key.
final class SQLiteProcessLoadTests: XCTestCase {
    func testTwoProcessesSavingToOneSQLiteStoreLoseNothing() throws {
        let tool = try builtTool("stowage-save-loop")
        let directory = try TemporaryDirectory()
        let url = directory.file("Shared.sqlite")
        let context = try storeWithACounter(at: url)
        let increments = 100
        try runTwoChildren(tool, url: url, increments: increments)
        try assertNoIncrementLost(in: context, total: 2 * increments)
    }

    /// Under the other merge policies a conflict is resolved, not refused: no save fails, no entry
    /// is lost or doubled, and the counter holds a value one of the processes wrote (increments
    /// that lost a conflict are gone, by the policy's design).
    func testTwoProcessesSavingUnderEachOtherMergePolicyLoseNoEntry() throws {
        let tool = try builtTool("stowage-save-loop")
        for policy in ["objectTrump", "storeTrump", "overwrite", "rollback"] {
            let directory = try TemporaryDirectory()
            let url = directory.file("Shared.sqlite")
            let context = try storeWithACounter(at: url)
            let increments = 50
            try runTwoChildren(tool, url: url, increments: increments, policy: policy)
            try context.performAndWait {
                context.refreshAllObjects()
                let entries = try context.fetch(FetchRequest<ManagedObject>(entityName: "Entry"))
                XCTAssertEqual(entries.count, 2 * increments, "\(policy): every entry saved once")
                let numbers = Set(try entries.map { try $0.value(forKey: "number") as? Int64 ?? -1 })
                XCTAssertEqual(numbers.count, 2 * increments, "\(policy): no entry doubled")
                let counter = try XCTUnwrap(try context.fetch(FetchRequest<ManagedObject>(entityName: "Counter")).first)
                let value = try counter.value(forKey: "value") as? Int64 ?? -1
                XCTAssertTrue((1...Int64(2 * increments)).contains(value), "\(policy): counter \(value)")
            }
        }
    }

    /// A new SQLite store at `url` holding the one counter, and a context on it (its coordinator
    /// keeps the store open).
    private func storeWithACounter(at url: URL) throws -> ManagedObjectContext {
        let container = try saveLoopContainer(.sqlite, at: url)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            _ = try context.insertNewObject(forEntityName: "Counter")
            try context.save()
        }
        return context
    }

    /// Runs two `--increments` children of `stowage-save-loop` on the store at once (with
    /// `policy`, a merge policy's name, when given) and waits for both to succeed.
    private func runTwoChildren(_ tool: URL, url: URL, increments: Int, policy: String? = nil) throws {
        let children = (0..<2).map { _ in
            let child = Process()
            child.executableURL = tool
            child.arguments = ["sqlite", url.absoluteString, "--increments", String(increments)] + (policy.map { [$0] } ?? [])
            child.standardOutput = FileHandle.nullDevice
            child.environment = ProcessInfo.processInfo.environment.merging(["SWIFT_BACKTRACE": "enable=no"]) { $1 }
            return child
        }
        for child in children { try child.run() }
        for child in children {
            child.waitUntilExit()
            XCTAssertEqual(child.terminationStatus, 0, "\(policy ?? "error policy"): a child's saves failed")
        }
    }
}
