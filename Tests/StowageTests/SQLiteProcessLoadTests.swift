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
        let container = try saveLoopContainer(.sqlite, at: url)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            _ = try context.insertNewObject(forEntityName: "Counter")
            try context.save()
        }

        let increments = 100
        let children = (0..<2).map { _ in
            let child = Process()
            child.executableURL = tool
            child.arguments = ["sqlite", url.absoluteString, "--increments", String(increments)]
            child.standardOutput = FileHandle.nullDevice
            child.environment = ProcessInfo.processInfo.environment.merging(["SWIFT_BACKTRACE": "enable=no"]) { $1 }
            return child
        }
        for child in children { try child.run() }
        for child in children {
            child.waitUntilExit()
            XCTAssertEqual(child.terminationStatus, 0, "a child's saves failed")
        }
        try assertNoIncrementLost(in: context, total: 2 * increments)
    }
}
