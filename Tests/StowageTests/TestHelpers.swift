import Foundation
import StoreCore
import StoreTestSupport
import XCTest

extension XCTestCase {
    /// Runs `body` once per store type (``StoreBackend/all``), naming the backend in any failure.
    func forEachBackend(_ body: (StoreBackend) throws -> Void) {
        for backend in StoreBackend.all {
            do { try body(backend) } catch { XCTFail("\(backend): \(error)") }
        }
    }

    /// A container on the save-loop child's store at `url` (``SaveLoopStore``), with history and
    /// remote change notifications on — what the two-process tests open beside the child.
    func saveLoopContainer(_ backend: StoreBackend, at url: URL) throws -> PersistentContainer {
        backend.register()
        let container = PersistentContainer(name: "SaveLoop", managedObjectModel: try SaveLoopStore.makeModel())
        var description = PersistentStoreDescription(type: backend.type, url: url)
        description.isHistoryTrackingEnabled = true
        description.setOption(true, forKey: .remoteChangeNotificationPost)
        container.persistentStoreDescriptions = [description]
        try container.loadPersistentStores()
        return container
    }

    /// Checks what `--increments` children of `stowage-save-loop` left in the store `context`
    /// reads: the counter at `total`, and `total` entries, none saved twice.
    func assertNoIncrementLost(in context: ManagedObjectContext, total: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        try context.performAndWait {
            context.refreshAllObjects()
            let counter = try XCTUnwrap(try context.fetch(FetchRequest<ManagedObject>(entityName: "Counter")).first, file: file, line: line)
            XCTAssertEqual(try counter.value(forKey: "value") as? Int64, Int64(total), "no increment was lost", file: file, line: line)
            let entries = try context.fetch(FetchRequest<ManagedObject>(entityName: "Entry"))
            XCTAssertEqual(entries.count, total, "every entry saved once", file: file, line: line)
            let numbers = Set(try entries.map { try $0.value(forKey: "number") as? Int64 ?? -1 })
            XCTAssertEqual(numbers.count, total, "no two entries share a number", file: file, line: line)
            XCTAssertEqual(Set(entries.map(\.objectID)).count, total, "no two processes' objects share a key", file: file, line: line)
        }
    }

    /// An executable the test target builds next to the test bundle (`stowage`, `stowage-save-loop`).
    func builtTool(_ name: String) throws -> URL {
        let url = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name)
        guard FileManager.default.isExecutableFile(atPath: url.path) else {
            throw XCTSkip("\(name) is not built next to the test bundle (\(url.path))")
        }
        return url
    }

    /// Runs the `stowage` tool and returns its exit status and its output and errors together.
    func runStowage(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = try builtTool("stowage")
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }
}
