import Foundation
import StoreCore
import Stowage
import StoreTestSupport
import XCTest

/// `PersistentStoreCoordinator.metadataForPersistentStore(ofType:at:)` reads what a store
/// recorded without opening it or changing a byte, on every file-backed store type and on
/// stores Apple's Core Data wrote; `isConfiguration(withName:compatibleWithStoreMetadata:)`
/// tells the model that wrote it from the others.
final class StoreMetadataReadingTests: XCTestCase {
    static let fileBacked = StoreBackend.all.filter(\.isFileBacked)

    static func model(extraAttribute: Bool = false) throws -> ManagedObjectModel {
        try ManagedObjectModel(configurations: ["Notes": ["Note"]]) {
            EntityDescription("Note") {
                .attribute("body", .string)
                if extraAttribute { .attribute("rank", .integer32) }
            }
            EntityDescription("Tag") { .attribute("name", .string) }
        }
    }

    /// The store file and its write-ahead log (SQLite's `-shm` is a shared-memory index every
    /// reader updates, not data).
    private func bytes(of url: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: url.path + suffix) {
            files[suffix] = try Data(contentsOf: URL(fileURLWithPath: url.path + suffix))
        }
        return files
    }

    func testMetadataIsReadWithoutOpeningTheStoreOnEveryFileType() throws {
        for backend in Self.fileBacked {
            let directory = try TemporaryDirectory()
            let description = backend.description(named: "Notes", in: directory)
            let model = try Self.model()
            let container = PersistentContainer(name: "Notes", managedObjectModel: model)
            container.persistentStoreDescriptions = [description]
            try container.loadPersistentStores()
            let coordinator = container.persistentStoreCoordinator
            let store = try XCTUnwrap(coordinator.persistentStores.first)
            var written = coordinator.metadata(for: store)
            written.userInfo["importedBy"] = .string("test")
            try coordinator.setMetadata(written, for: store)
            let context = container.newBackgroundContext()
            try context.performAndWait {
                try context.insertNewObject(forEntityName: "Note").setValue("hello", forKey: "body")
                try context.save()
            }
            try coordinator.removePersistentStore(store)
            let url = try XCTUnwrap(description.url)
            let before = try bytes(of: url)

            for type in [backend.type, nil] {
                let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: type, at: url)
                XCTAssertEqual(metadata.storeUUID, written.storeUUID, "\(backend)")
                XCTAssertEqual(metadata.modelVersionHashes, model.coreDataEntityVersionHashesByName, "\(backend)")
                XCTAssertEqual(metadata.userInfo["importedBy"], .string("test"), "\(backend)")
            }
            XCTAssertEqual(try bytes(of: url), before, "\(backend): reading metadata writes nothing")

            let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(ofType: backend.type, at: url)
            XCTAssertTrue(model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata), "\(backend)")
            XCTAssertTrue(model.isConfiguration(withName: "Notes", compatibleWithStoreMetadata: metadata), "\(backend)")
            XCTAssertFalse(model.isConfiguration(withName: "Nope", compatibleWithStoreMetadata: metadata), "\(backend)")
            let changed = try Self.model(extraAttribute: true)
            XCTAssertFalse(changed.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata), "\(backend): a changed entity")
            XCTAssertFalse(changed.isConfiguration(withName: "Notes", compatibleWithStoreMetadata: metadata), "\(backend)")
        }
    }

    func testBadInputGetsATypedErrorAndChangesNothing() throws {
        let directory = try TemporaryDirectory()
        let missing = directory.file("missing.sqlite")
        XCTAssertThrowsError(try PersistentStoreCoordinator.metadataForPersistentStore(ofType: .sqlite, at: missing)) { error in
            XCTAssertEqual((error as? StoreError)?.code, .io)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: missing.path), "no file is created")
        let text = directory.file("notes.txt")
        try Data("just some notes".utf8).write(to: text)
        for type in [PersistentStoreType.sqlite, .xml, .binary, nil] {
            XCTAssertThrowsError(try PersistentStoreCoordinator.metadataForPersistentStore(ofType: type, at: text)) { error in
                XCTAssertEqual((error as? StoreError)?.code, .wrongFormat, "\(String(describing: type)): \(error)")
            }
        }
        XCTAssertEqual(try Data(contentsOf: text), Data("just some notes".utf8))
        XCTAssertThrowsError(try PersistentStoreCoordinator.metadataForPersistentStore(ofType: .inMemory, at: text)) { error in
            XCTAssertEqual((error as? StoreError)?.code, .unknownStoreType)
        }
    }

    func testAppleWrittenStoresNameTheVersionThatWroteThem() throws {
        guard let package = CoreDataFixtures.model("duckduckgo__BrowserServicesKit/BookmarksModel.xcdatamodeld") else {
            throw XCTSkip("the Core Data fixtures are not present")
        }
        let bundle = try ManagedObjectModelBundle(contentsOf: package)
        for version in 1...5 {
            let directory = try TemporaryDirectory()
            guard let url = try CoreDataFixtures.copyOfStore("duckduckgo__BrowserServicesKit/Bookmarks_V\(version).sqlite", into: directory.url) else {
                throw XCTSkip("the Core Data fixtures are not present")
            }
            let before = try bytes(of: url)
            let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(at: url)
            XCTAssertEqual(metadata.storeType, PersistentStoreType.sqlite.rawValue)
            let name = version == 1 ? "BookmarksModel" : "BookmarksModel \(version)"
            XCTAssertEqual(bundle.version(compatibleWithStoreMetadata: metadata)?.name, name)
            for other in bundle.versions {
                XCTAssertEqual(other.model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata), other.name == name, other.name)
            }
            XCTAssertEqual(try bytes(of: url), before, "reading metadata writes nothing, not even to the -wal")
        }
    }
}
