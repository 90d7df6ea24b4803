import Foundation
import StoreCore
import StoreTestSupport
import StowageTestKit
import XCTest

/// A live query sees a save made by another process (through the remote change watcher; an XML
/// store reads the replaced file again).
final class LiveQueryProcessTests: XCTestCase {
    func testALiveQuerySeesAnotherProcessSave() throws {
        _ = try builtTool("stowage-save-loop")  // skips when it is not built
        for backend in [StoreBackend.sqlite, .xml] {
            let directory = try TemporaryDirectory()
            let url = directory.file("Live.\(backend.fileExtension ?? "store")")
            let container = try saveLoopContainer(backend, at: url)
            let context = container.newBackgroundContext()
            var request = FetchRequest<FetchedDictionary>(entityName: "Counter")
            request.propertiesToFetch = ["value"]
            let values = LiveResultsRecorder(context.changes(for: request))
            defer { values.cancel() }
            XCTAssertEqual(try values.next(), [], "\(backend): the store starts empty")

            let child = Process()
            child.executableURL = try builtTool("stowage-save-loop")
            child.arguments = [backend.type.rawValue, url.path, "--once"]
            child.standardOutput = FileHandle.nullDevice
            try child.run()
            child.waitUntilExit()
            XCTAssertEqual(child.terminationStatus, 0, "\(backend): the child's save failed")

            // The child saves twice (it makes the counter, then adds one); the query may see
            // either save first, but ends with the counter at 1.
            var latest: [FetchedDictionary] = []
            while latest.first?["value"] != .integer(1) {
                latest = try values.next()
                XCTAssertEqual(latest.count, 1, "\(backend): one counter")
            }
            XCTAssertLessThanOrEqual(values.all.count, 3, "\(backend): no repeated results")
            // And this process can still save to the file the other process replaced.
            try context.performAndWait {
                let counter = try context.fetch(FetchRequest<ManagedObject>(entityName: "Counter")).first
                try counter?.setValue(Int64(2), forKey: "value")
                try context.save()
            }
            XCTAssertEqual(try values.next().first?["value"], .integer(2), "\(backend)")
        }
    }
}
