import Foundation
import StoreCore
import StoreTestSupport
import XCTest

/// The atomic-store engine's own guarantees, shown through the user-written JSON format: files
/// are checked against the model on open and never touched when they fail, saves write only
/// when something changed, and a file replaced by someone else is not overwritten.
final class AtomicStoreTests: XCTestCase {
    private func load(_ url: URL, model: ManagedObjectModel? = nil, configure: (inout PersistentStoreDescription) -> Void = { _ in }) throws -> PersistentContainer {
        JSONStoreFormat.register()
        let container = PersistentContainer(name: "Blog", managedObjectModel: try model ?? BlogModel.make())
        var description = PersistentStoreDescription(type: JSONStoreFormat.type, url: url)
        configure(&description)
        container.persistentStoreDescriptions = [description]
        try container.loadPersistentStores()
        return container
    }

    private func saveTag(_ name: String, in container: PersistentContainer) throws {
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let tag = try Tag(context: context)
            tag.name = name
            try context.save()
        }
    }

    /// A JSON store file holding `objects` (JSON text), written by hand.
    private func writeFile(_ url: URL, objects: String, hashes: String = "{}") throws {
        let json = """
            {"format": "stowage-json-store", "uuid": "5F1B8C7E-0000-4000-8000-000000000001", "nextKey": 10,
             "modelVersionHashes": \(hashes), "userInfo": {}, "objects": [\(objects)]}
            """
        try Data(json.utf8).write(to: url)
    }

    private func assertLoadFails(_ url: URL, _ code: StoreError.Code, _ phrase: String, line: UInt = #line) throws {
        let before = try Data(contentsOf: url)
        XCTAssertThrowsError(try load(url), line: line) { error in
            XCTAssertEqual((error as? StoreError)?.code, code, "\(error)", line: line)
            XCTAssertTrue("\(error)".contains(phrase), "\(error)", line: line)
        }
        XCTAssertEqual(try Data(contentsOf: url), before, "the file is unchanged", line: line)
    }

    func testAFileIsCheckedAgainstTheModelAndLeftUntouchedWhenItFails() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("Blog.json")
        try writeFile(url, objects: #"{"entity": "Gadget", "key": 1, "attributes": {}, "relationships": {}}"#)
        try assertLoadFails(url, .unknownEntity, "Gadget")
        try writeFile(url, objects: #"{"entity": "Tag", "key": 1, "attributes": {"colour": {"string": {"_0": "red"}}}, "relationships": {}}"#)
        try assertLoadFails(url, .unknownProperty, "colour")
        try writeFile(url, objects: #"{"entity": "Tag", "key": 1, "attributes": {"name": {"integer": {"_0": 7}}}, "relationships": {}}"#)
        try assertLoadFails(url, .corrupt, "String")
        try writeFile(url, objects: #"{"entity": "Comment", "key": 1, "attributes": {}, "relationships": {"post": [9]}}"#)
        try assertLoadFails(url, .danglingReference, "object 9")
        try writeFile(url, objects: """
            {"entity": "Comment", "key": 1, "attributes": {}, "relationships": {"post": [2]}},
            {"entity": "Tag", "key": 2, "attributes": {}, "relationships": {}}
            """)
        try assertLoadFails(url, .danglingReference, "not a Post")
        try writeFile(url, objects: #"{"entity": "Item", "key": 1, "attributes": {}, "relationships": {}}"#)
        try assertLoadFails(url, .corrupt, "abstract")
        try Data("{\"not\": \"a store\"}".utf8).write(to: url)
        try assertLoadFails(url, .wrongFormat, "not a JSON store")
    }

    func testAFileOfAnotherModelOpensOnlyWhenMigrationIsAllowed() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("Blog.json")
        try writeFile(url, objects: "", hashes: #"{"Tag": "AAAA", "Gadget": "AAAA"}"#)
        XCTAssertThrowsError(try load(url) { $0.shouldMigrateStoreAutomatically = false }) { error in
            XCTAssertEqual((error as? StoreError)?.code, .incompatibleModel, "\(error)")
            XCTAssertTrue("\(error)".contains("migration was not asked for"), "\(error)")
        }
        XCTAssertThrowsError(try load(url)) { error in
            XCTAssertEqual((error as? StoreError)?.code, .incompatibleModel, "\(error)")
            XCTAssertTrue("\(error)".contains("Gadget"), "\(error)")
        }
        try writeFile(url, objects: #"{"entity": "Tag", "key": 1, "attributes": {"name": {"string": {"_0": "old"}}}, "relationships": {}}"#, hashes: #"{"Tag": "AAAA"}"#)
        let container = try load(url)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            XCTAssertEqual(try context.fetch(FetchRequest<Tag>()).map(\.name), ["old"])
        }
    }

    func testASaveWithoutChangesWritesNothingAndAReplacedFileIsNotOverwritten() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("Blog.json")
        let first = try load(url)
        try saveTag("swift", in: first)
        let written = try FileManager.default.attributesOfItem(atPath: url.path)
        let context = first.newBackgroundContext()
        try context.performAndWait { try context.save() }
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date, written[.modificationDate] as? Date)

        let second = try load(url)
        try saveTag("linux", in: second)
        let secondsFile = try Data(contentsOf: url)
        XCTAssertThrowsError(try saveTag("lost", in: first)) { error in
            XCTAssertEqual((error as? StoreError)?.code, .modifiedExternally, "\(error)")
        }
        XCTAssertEqual(try Data(contentsOf: url), secondsFile)
        let reopened = try load(url).newBackgroundContext()
        try reopened.performAndWait {
            XCTAssertEqual(Set(try reopened.fetch(FetchRequest<Tag>()).map(\.name)), ["swift", "linux"])
        }
    }

    func testMetadataAndKeysSurviveReopening() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("Blog.json")
        let container = try load(url)
        let coordinator = container.persistentStoreCoordinator
        let store = try XCTUnwrap(coordinator.persistentStores.first)
        var metadata = coordinator.metadata(for: store)
        metadata.userInfo["importedFrom"] = "feed.xml"
        try coordinator.setMetadata(metadata, for: store)
        try saveTag("swift", in: container)
        let reopened = try load(url)
        let again = try XCTUnwrap(reopened.persistentStoreCoordinator.persistentStores.first)
        XCTAssertEqual(again.identifier, store.identifier)
        XCTAssertEqual(again.metadata.userInfo["importedFrom"], "feed.xml")
        try saveTag("linux", in: reopened)
        let context = reopened.newBackgroundContext()
        try context.performAndWait {
            let keys = try context.fetch(FetchRequest<Tag>()).compactMap(\.objectID.primaryKey)
            XCTAssertEqual(Set(keys).count, 2, "a reopened store never hands out a key twice")
        }
    }

    func testAReadOnlyStoreNeedsAFileAndRefusesSaves() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("Blog.json")
        XCTAssertThrowsError(try load(url) { $0.isReadOnly = true }) { error in
            XCTAssertEqual((error as? StoreError)?.code, .io, "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: url.path))
        try saveTag("swift", in: try load(url))
        let readOnly = try load(url) { $0.isReadOnly = true }
        XCTAssertThrowsError(try saveTag("linux", in: readOnly))
    }
}
