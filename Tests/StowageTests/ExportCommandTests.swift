import Foundation
import Stowage
import StoreTestSupport
import XCTest

/// `stowage export` and the store-type detection it relies on, run as a user runs them.
final class ExportCommandTests: XCTestCase {

    func testStoreTypesAreDetectedFromTheirFirstBytes() throws {
        let directory = try TemporaryDirectory()
        _ = try TestStack.sqliteContainer(at: directory.file("Blog.sqlite"))
        XCTAssertEqual(try PersistentStoreType(detectingStoreAt: directory.file("Blog.sqlite")), .sqlite)
        let xml = directory.file("Store.data")
        try Data("<?xml version=\"1.0\"?>\n<!DOCTYPE database SYSTEM \"file:///System/Library/DTDs/CoreData.dtd\">\n<database>".utf8).write(to: xml)
        XCTAssertEqual(try PersistentStoreType(detectingStoreAt: xml), .xml)
        let binary = directory.file("Store.bin")
        try Data("bplist00\u{D0}".utf8).write(to: binary)
        XCTAssertEqual(try PersistentStoreType(detectingStoreAt: binary), .binary)
        let text = directory.file("notes.txt")
        try Data("just some notes".utf8).write(to: text)
        XCTAssertThrowsError(try PersistentStoreType(detectingStoreAt: text)) { error in
            XCTAssertEqual((error as? StoreError)?.code, .wrongFormat)
        }
        XCTAssertThrowsError(try PersistentStoreType(detectingStoreAt: directory.file("missing"))) { error in
            XCTAssertEqual((error as? StoreError)?.code, .io)
        }
    }

    func testExportCopiesTheDemoStoreIntoEveryTypeAndBack() throws {
        let directory = try TemporaryDirectory()
        let demo = directory.file("Demo.sqlite").path
        XCTAssertEqual(try runStowage(["demo", "--path", demo]).status, 0)
        var previous = demo
        for (step, type) in StoreBackend.exportChain.enumerated() {
            let next = directory.file("step\(step).\(type)").path
            let (status, output) = try runStowage(["export", previous, "--to", type, next])
            XCTAssertEqual(status, 0, output)
            XCTAssertTrue(output.contains("Copied 5 objects"), output)
            XCTAssertTrue(output.contains("into a new \(type) store"), output)
            previous = next
        }
        let (status, output) = try runStowage(["export", previous, "--to", "sqlite", demo])
        XCTAssertNotEqual(status, 0)
        XCTAssertTrue(output.contains("already there"), output)
    }

    func testExportTakesACompiledModel() throws {
        let directory = try TemporaryDirectory()
        guard let url = try CoreDataFixtures.copyOfStore("bignerdranch__CoreDataStack/TestModel.sqlite", into: directory.url),
            let package = CoreDataFixtures.model("bignerdranch__CoreDataStack/Sample.xcdatamodeld")
        else { throw XCTSkip("the Core Data fixtures are not present") }
        let mom = directory.file("TestModel.mom")
        try CompiledModelArchiver.archive(try XCTUnwrap(try ManagedObjectModelBundle(contentsOf: package).version(named: "TestModel")).model).write(to: mom)
        let output = directory.file("TestModel.xml").path
        let (status, text) = try runStowage(["export", url.path, "--to", "xml", output, "--model", mom.path])
        XCTAssertEqual(status, 0, text)
        XCTAssertTrue(text.contains("into a new xml store"), text)
        XCTAssertEqual(try PersistentStoreType(detectingStoreAt: URL(fileURLWithPath: output)), .xml)
    }

    func testExportRefusesAFileThatIsNotAStore() throws {
        let directory = try TemporaryDirectory()
        let text = directory.file("notes.txt")
        try Data("just some notes".utf8).write(to: text)
        let (status, output) = try runStowage(["export", text.path, "--to", "xml", directory.file("out.xml").path])
        XCTAssertNotEqual(status, 0)
        XCTAssertTrue(output.contains("not a store file"), output)
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.file("out.xml").path))
    }

    func testExportWithoutAModelUsesTheStoresOwn() throws {
        // A store of another model than the demo's: the blog of the shared suite, and a store
        // Apple's Core Data wrote (read through its own cached model when it has one).
        let directory = try TemporaryDirectory()
        let blog = directory.file("Blog.sqlite")
        let container = try TestStack.sqliteContainer(at: blog)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let post = try Post(context: context)
            post.title = "Exported"
            try context.save()
        }
        for store in container.persistentStoreCoordinator.persistentStores { try container.persistentStoreCoordinator.removePersistentStore(store) }
        let output = directory.file("Blog.xml").path
        let (status, text) = try runStowage(["export", blog.path, "--to", "xml", output])
        XCTAssertEqual(status, 0, text)
        // Stowage's stores cache their model, as Core Data's do.
        XCTAssertTrue(text.contains("the store's own copy of its model (Z_MODELCACHE)"), text)
        XCTAssertTrue(text.contains("Copied 1 objects"), text)
        XCTAssertTrue(try String(contentsOfFile: output, encoding: .utf8).contains("Exported"))

        guard let apple = try CoreDataFixtures.copyOfStore("duckduckgo__BrowserServicesKit/Bookmarks_V5.sqlite", into: directory.url) else { return }
        let (appleStatus, appleText) = try runStowage(["export", apple.path, "--to", "binary", directory.file("Bookmarks.binarystore").path])
        XCTAssertEqual(appleStatus, 0, appleText)
        XCTAssertTrue(appleText.contains("Copied"), appleText)
    }
}
