import Foundation
import Stowage
import XCTest

/// CommandLineTool.md: what `stowage inspect` does, from code.
final class CommandLineToolExamples: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = try ExampleStack.makeDirectory()
    }

    override func tearDown() {
        ExampleStack.removeDirectory(directory)
        super.tearDown()
    }

    func testInspectFromCode() throws {
        let storeURL = directory.appendingPathComponent("Blog.sqlite")
        let container = try ExampleStack.seeded(PersistentStoreDescription(url: storeURL))
        ExampleStack.close(container)

        let inferred = try InferredModel(storeAt: storeURL)
        print(inferred.storeType, inferred.source)          // sqlite modelCache
        print(inferred.model.entities.map(\.name))          // the entities the file holds
        for note in inferred.notes {
            print("note:", note)                            // what was guessed or left out
        }

        XCTAssertEqual(inferred.storeType, .sqlite)
        XCTAssertEqual(inferred.source, .modelCache, "Stowage caches its model in the store, as Core Data does")
        XCTAssertTrue(Set(inferred.model.entities.map(\.name)).isSuperset(of: ["Author", "Post", "Comment", "Photo", "Link"]))
        XCTAssertNotNil(inferred.model.entitiesByName["Post"]?.attributesByName["title"])
        XCTAssertFalse(inferred.model.isInferred, "the store's own model, not one rebuilt from its layout")
    }
}
