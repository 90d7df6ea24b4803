#if Postgres  // the PostgreSQL store is built only with the Postgres package trait (Package.swift)
import Foundation
import StoreCore
import StoreTestSupport
import XCTest

/// The PostgreSQL store shared by OS processes: two children incrementing one counter, and the
/// command-line tool moving a store onto the server and back. Needs `STOWAGE_POSTGRES_URL`
/// (docs/postgres.md); skips without it.
final class PostgresProcessTests: XCTestCase {
    private func serverURL(schema: String) throws -> URL {
        guard let text = ProcessInfo.processInfo.environment["STOWAGE_POSTGRES_URL"], !text.isEmpty,
            var components = URLComponents(string: text)
        else { throw XCTSkip("PostgreSQL tests skipped: set STOWAGE_POSTGRES_URL (scripts/postgres-cluster start DIR prints one) or run .ci/run") }
        components.queryItems = (components.queryItems ?? []) + [URLQueryItem(name: "schema", value: schema)]
        return try XCTUnwrap(components.url)
    }

    private func freshSchema(_ prefix: String) -> String {
        "\(prefix)_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(10).lowercased()
    }

    func testTwoProcessesSavingConcurrentlyLoseNothingAndNotifyEachOther() throws {
        let tool = try builtTool("stowage-save-loop")
        let url = try serverURL(schema: freshSchema("procs"))
        let container = PersistentContainer(name: "SaveLoop", managedObjectModel: try SaveLoopStore.makeModel())
        var description = PersistentStoreDescription(url: url)
        description.isHistoryTrackingEnabled = true
        description.setOption(true, forKey: .remoteChangeNotificationPost)
        container.persistentStoreDescriptions = [description]
        try container.loadPersistentStores()
        let context = container.newBackgroundContext()
        try context.performAndWait {
            _ = try context.insertNewObject(forEntityName: "Counter")
            try context.save()
        }
        let notified = expectation(description: "a child's commit reaches this process")
        notified.assertForOverFulfill = false
        let observer = NotificationCenter.default.addObserver(
            forName: .persistentStoreRemoteChange, object: container.persistentStoreCoordinator, queue: nil) { _ in notified.fulfill() }
        defer { NotificationCenter.default.removeObserver(observer) }

        let increments = 40
        let children = (0..<2).map { _ in
            let child = Process()
            child.executableURL = tool
            child.arguments = ["postgres", url.absoluteString, "--increments", String(increments)]
            child.standardOutput = FileHandle.nullDevice
            return child
        }
        for child in children { try child.run() }
        wait(for: [notified], timeout: 30)
        for child in children {
            child.waitUntilExit()
            XCTAssertEqual(child.terminationStatus, 0, "a child's saves failed")
        }
        try assertNoIncrementLost(in: context, total: 2 * increments)
    }

    func testTheToolMovesAStoreOntoTheServerAndBack() throws {
        let url = try serverURL(schema: freshSchema("cli"))
        let directory = try TemporaryDirectory()
        let sqlite = directory.file("Blog.sqlite").path
        XCTAssertEqual(try runStowage(["demo", "--path", sqlite]).status, 0)
        let up = try runStowage(["export", sqlite, "--to", "postgres", url.absoluteString])
        XCTAssertEqual(up.status, 0, up.output)
        XCTAssertTrue(up.output.contains("into a new postgres store"), up.output)
        let inspected = try runStowage(["inspect", url.absoluteString, "--model", "demo", "--rows", "1"])
        XCTAssertEqual(inspected.status, 0, inspected.output)
        XCTAssertTrue(inspected.output.contains("Post: 2 objects") && inspected.output.contains("Type:     postgres"), inspected.output)
        XCTAssertNotEqual(try runStowage(["inspect", url.absoluteString]).status, 0, "a server's store needs --model")
        let again = try runStowage(["export", sqlite, "--to", "postgres", url.absoluteString])
        XCTAssertNotEqual(again.status, 0, "a schema that already holds a store is refused")
        XCTAssertTrue(again.output.contains("already holds"), again.output)
        let xml = directory.file("Blog.xml").path
        let down = try runStowage(["export", url.absoluteString, "--model", "demo", "--to", "xml", xml])
        XCTAssertEqual(down.status, 0, down.output)
        let text = try String(contentsOfFile: xml, encoding: .utf8)
        XCTAssertTrue(text.contains("Misty Morning") && text.contains("Harbour Lights"), "the posts made the round trip")

        let demo = try runStowage(["demo", "--store", "postgres", "--url", try serverURL(schema: freshSchema("demo")).absoluteString])
        XCTAssertEqual(demo.status, 0, demo.output)
        XCTAssertTrue(demo.output.contains("Loaded a postgres store"), demo.output)
    }
}
#endif
