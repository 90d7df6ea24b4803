import Foundation
import Stowage
import StoreTestSupport
import XCTest

/// Two processes, each syncing its own local store live (`stowage sync --live`): a save to one
/// store reaches the other without anyone polling for it or asking for a sync.
final class SyncProcessTests: XCTestCase {
    func testTwoLiveSyncingProcessesSeeEachOthersSaves() throws {
        let directory = try TemporaryDirectory()
        let model = try SyncCommandTests.model()
        let a = directory.file("a.sqlite"), b = directory.file("b.sqlite"), server = directory.file("server.sqlite")
        let first = try SyncCommandTests.container(a, model)
        _ = try SyncCommandTests.container(b, model)
        var (status, output) = try runStowage(["sync", a.path, "--with", server.path])   // makes the server store
        XCTAssertEqual(status, 0, output)
        (status, output) = try runStowage(["sync", b.path, "--with", server.path])
        XCTAssertEqual(status, 0, output)

        var children: [Process] = []
        defer {
            for child in children where child.isRunning { child.terminate() }
            for child in children { child.waitUntilExit() }
        }
        for local in [a, b] {
            let child = Process()
            child.executableURL = try builtTool("stowage")
            child.arguments = ["sync", local.path, "--with", server.path, "--live"]
            child.standardOutput = FileHandle.nullDevice
            child.standardError = FileHandle.nullDevice
            try child.run()
            children.append(child)
        }

        let writer = first.newBackgroundContext()
        try writer.performAndWait {
            try writer.insertNewObject(forEntityName: "Note").setValue("saved in a", forKey: "title")
            try writer.save()
        }
        try waitUntil("b's process pulled a's note") { try titles(b, model) == ["saved in a"] }

        let second = try SyncCommandTests.container(b, model).newBackgroundContext()
        try second.performAndWait {
            try second.fetch(FetchRequest<ManagedObject>(entityName: "Note")).first?.setValue("edited in b", forKey: "title")
            try second.save()
        }
        try waitUntil("a's process pulled b's edit") { try titles(a, model) == ["edited in b"] }
        XCTAssertTrue(children.allSatisfy(\.isRunning), "both processes still syncing")
    }

    private func titles(_ url: URL, _ model: ManagedObjectModel) throws -> [String] {
        let context = try SyncCommandTests.container(url, model).newBackgroundContext()
        return try context.performAndWait {
            try context.fetch(FetchRequest<ManagedObject>(entityName: "Note")).map { try $0.value(forKey: "title") as? String ?? "" }
        }
    }

    /// Waits (up to a minute: a bound for a stuck test, not a speed check) until `condition` holds.
    private func waitUntil(_ what: String, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(60)
        while try !condition() {
            guard Date() < deadline else { return XCTFail("never happened: \(what)") }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }
}
