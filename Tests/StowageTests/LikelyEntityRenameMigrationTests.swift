import Foundation
import StoreCore
import Stowage
import StoreTestSupport
import XCTest

/// A store whose model renamed an entity without a renaming identifier, migrated on load, by a
/// staged migration and from the command line: the rename is named (dry run, log) and, when the
/// description (or `--refuse-likely-renames`) asks for it, refused with the store unchanged.
final class LikelyEntityRenameMigrationTests: XCTestCase {
    static let fileBacked = StoreBackend.all.filter(\.isFileBacked)

    static func v1() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Note") { .attribute("title", .string); .attribute("rank", .integer16) }
            EntityDescription("Folder") { .attribute("name", .string) }
        }
    }

    /// Note renamed Memo, without a renaming identifier.
    static func v2() throws -> ManagedObjectModel {
        let model = try ManagedObjectModel {
            EntityDescription("Memo") { .attribute("title", .string); .attribute("rank", .integer16) }
            EntityDescription("Folder") { .attribute("name", .string) }
        }
        model.migrationSourceModels = [try v1()]
        return model
    }

    private func makeV1Store(_ backend: StoreBackend, in directory: TemporaryDirectory) throws -> PersistentStoreDescription {
        let description = backend.description(named: "Notes", in: directory)
        let container = PersistentContainer(name: "Notes", managedObjectModel: try Self.v1())
        container.persistentStoreDescriptions = [description]
        try container.loadPersistentStores()
        let context = container.newBackgroundContext()
        try context.performAndWait {
            for title in ["first", "second"] { try context.insertNewObject(forEntityName: "Note").setValue(title, forKey: "title") }
            try context.insertNewObject(forEntityName: "Folder").setValue("Inbox", forKey: "name")
            try context.save()
        }
        for store in container.persistentStoreCoordinator.persistentStores { try container.persistentStoreCoordinator.removePersistentStore(store) }
        return description
    }

    private func assertRefused(_ error: any Error, _ backend: StoreBackend, file: StaticString = #filePath, line: UInt = #line) {
        guard let error = error as? MigrationError else { return XCTFail("\(backend): \(error)", file: file, line: line) }
        XCTAssertEqual(error.code, .likelyEntityRename, "\(backend): \(error)", file: file, line: line)
        XCTAssertEqual(error.sourceEntity, "Note", "\(backend)", file: file, line: line)
        XCTAssertEqual(error.entity, "Memo", "\(backend)", file: file, line: line)
        XCTAssertTrue(error.message.contains("set Memo's renamingIdentifier to \"Note\""), "\(backend): \(error.message)", file: file, line: line)
    }

    func testALikelyRenameIsRefusedOnLoadWhenTheDescriptionAsksAndTheStoreIsUnchanged() throws {
        for backend in Self.fileBacked {
            let directory = try TemporaryDirectory()
            var description = try makeV1Store(backend, in: directory)
            let url = try XCTUnwrap(description.url)
            let before = try Data(contentsOf: url)
            description.shouldRefuseLikelyEntityRenames = true
            let refusing = PersistentContainer(name: "Notes", managedObjectModel: try Self.v2())
            refusing.persistentStoreDescriptions = [description]
            XCTAssertThrowsError(try refusing.loadPersistentStores(), "\(backend)") { assertRefused($0, backend) }
            XCTAssertEqual(try Data(contentsOf: url), before, "\(backend): nothing written")

            // Without the option the migration goes on as Core Data's does: the notes are dropped.
            description.shouldRefuseLikelyEntityRenames = false
            let container = PersistentContainer(name: "Notes", managedObjectModel: try Self.v2())
            container.persistentStoreDescriptions = [description]
            try container.loadPersistentStores()
            let context = container.newBackgroundContext()
            try context.performAndWait {
                XCTAssertEqual(try context.count(for: FetchRequest<ManagedObject>(entityName: "Memo")), 0, "\(backend)")
                XCTAssertEqual(try context.count(for: FetchRequest<ManagedObject>(entityName: "Folder")), 1, "\(backend)")
            }
        }
    }

    func testAStagedMigrationRefusesALikelyRenameBeforeAnyStep() throws {
        for backend in Self.fileBacked {
            let directory = try TemporaryDirectory()
            var description = try makeV1Store(backend, in: directory)
            let url = try XCTUnwrap(description.url)
            let before = try Data(contentsOf: url)
            let v1 = try Self.v1()
            let between = try ManagedObjectModel {
                EntityDescription("Note") { .attribute("title", .string); .attribute("rank", .integer16) }
                EntityDescription("Folder") { .attribute("name", .string); .attribute("color", .string) }
            }
            let v3 = try ManagedObjectModel {
                EntityDescription("Memo") { .attribute("title", .string); .attribute("rank", .integer16) }
                EntityDescription("Folder") { .attribute("name", .string); .attribute("color", .string) }
            }
            description.shouldRefuseLikelyEntityRenames = true
            description.stagedMigrationManager = StagedMigrationManager([LightweightMigrationStage([v1, between, v3])])
            let container = PersistentContainer(name: "Notes", managedObjectModel: v3)
            container.persistentStoreDescriptions = [description]
            XCTAssertThrowsError(try container.loadPersistentStores(), "\(backend)") { assertRefused($0, backend) }
            XCTAssertEqual(try Data(contentsOf: url), before, "\(backend): not even the first step ran")
        }
    }

    /// `Notes.xcdatamodeld` with "Notes" (v1) and "Notes 2" (v2, current).
    private func writeNotesPackage(in directory: URL) throws -> URL {
        let package = directory.appendingPathComponent("Notes.xcdatamodeld", isDirectory: true)
        let folder = #"<entity name="Folder"><attribute name="name" optional="YES" attributeType="String"/></entity>"#
        let versions = [
            "Notes": #"<entity name="Note"><attribute name="title" optional="YES" attributeType="String"/><attribute name="rank" optional="YES" attributeType="Integer 16"/></entity>"# + folder,
            "Notes 2": #"<entity name="Memo"><attribute name="title" optional="YES" attributeType="String"/><attribute name="rank" optional="YES" attributeType="Integer 16"/></entity>"# + folder,
        ]
        for (name, entities) in versions {
            let version = package.appendingPathComponent("\(name).xcdatamodel", isDirectory: true)
            try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
            try Data(#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?><model type="com.apple.IDECoreDataModeler.DataModel">\#(entities)</model>"#.utf8)
                .write(to: version.appendingPathComponent("contents"))
        }
        try Data(#"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>_XCCurrentVersionName</key><string>Notes 2.xcdatamodel</string></dict></plist>"#.utf8)
            .write(to: package.appendingPathComponent(".xccurrentversion"))
        return package
    }

    func testTheCommandLineNamesALikelyRenameInItsDryRunAndRefusesItOnRequest() throws {
        let directory = try TemporaryDirectory()
        let package = try writeNotesPackage(in: directory.url)
        let bundle = try ManagedObjectModelBundle(contentsOf: package)
        let v1 = try XCTUnwrap(bundle.version(named: "Notes")?.model)
        let store = directory.file("Notes.sqlite")
        let old = PersistentContainer(name: "Notes", managedObjectModel: v1)
        old.persistentStoreDescriptions = [PersistentStoreDescription(url: store)]
        try old.loadPersistentStores()
        let writer = old.newBackgroundContext()
        try writer.performAndWait {
            try writer.insertNewObject(forEntityName: "Note").setValue("first", forKey: "title")
            try writer.save()
        }
        for loaded in old.persistentStoreCoordinator.persistentStores { try old.persistentStoreCoordinator.removePersistentStore(loaded) }
        let before = try Data(contentsOf: store)

        let (dryStatus, dry) = try runStowage(["migrate", store.path, "--model", package.path, "--dry-run"])
        XCTAssertEqual(dryStatus, 0, dry)
        XCTAssertTrue(dry.contains("warning: Note was removed and Memo added with the same attributes and relationships"), dry)

        let (refusedStatus, refused) = try runStowage(["migrate", store.path, "--model", package.path, "--refuse-likely-renames"])
        XCTAssertNotEqual(refusedStatus, 0, refused)
        XCTAssertTrue(refused.contains("Note → Memo"), refused)
        XCTAssertEqual(try Data(contentsOf: store), before, "a refused migration changes nothing")

        let (status, output) = try runStowage(["migrate", store.path, "--model", package.path])
        XCTAssertEqual(status, 0, output)
        XCTAssertTrue(output.contains("warning") && output.contains("Note was removed and Memo added"), "the log says it: \(output)")
    }
}
