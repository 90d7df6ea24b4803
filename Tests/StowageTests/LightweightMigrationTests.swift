import Foundation
import StoreCore
import StoreTestSupport
import XCTest

/// Automatic lightweight migration on load, on every file-backed store type: a store saved with
/// an older model version is carried to the container's version with its objects, their IDs and
/// values; a change that cannot be inferred, a read-only store, or migration turned off leave
/// the file untouched.
final class LightweightMigrationTests: XCTestCase {
    static let fileBacked = StoreBackend.all.filter(\.isFileBacked)

    /// The first version; `bodyType` other than String makes a version that cannot be inferred from it.
    static func v1(bodyType: AttributeType = .string) throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Note") {
                .attribute("body", bodyType)
                .attribute("rank", .integer16)
                .attribute("legacy", .string)
                .toOne("folder", destination: "Folder", inverse: "notes")
            }
            EntityDescription("Folder") {
                .attribute("name", .string)
                .toMany("notes", destination: "Note", inverse: "folder")
            }
            EntityDescription("Scratch") { .attribute("text", .string) }
        }
    }

    /// Renames Note → Memo and body → text, widens rank, adds a required `pinned` with a
    /// default, removes `legacy` and the Scratch entity, and makes the folder a to-many.
    static func v2(sources: [ManagedObjectModel]) throws -> ManagedObjectModel {
        let model = try ManagedObjectModel {
            EntityDescription("Memo", renamingIdentifier: "Note") {
                .attribute("text", .string, renamingIdentifier: "body")
                .attribute("rank", .integer64)
                .attribute("pinned", .boolean, optional: false, defaultValue: false)
                .toMany("folders", destination: "Folder", inverse: "memos", renamingIdentifier: "folder")
            }
            EntityDescription("Folder") {
                .attribute("name", .string)
                .toMany("memos", destination: "Memo", inverse: "folders", renamingIdentifier: "notes")
            }
        }
        model.migrationSourceModels = sources
        return model
    }

    /// A v1 store with a folder holding two notes, and a scratch object; returns the notes' URIs.
    private func makeV1Store(_ backend: StoreBackend, in directory: TemporaryDirectory) throws -> (description: PersistentStoreDescription, uris: [String: URL]) {
        let description = backend.description(named: "Notes", in: directory)
        let container = PersistentContainer(name: "Notes", managedObjectModel: try Self.v1())
        container.persistentStoreDescriptions = [description]
        try container.loadPersistentStores()
        let context = container.newBackgroundContext()
        let uris = try context.performAndWait { () throws -> [String: URL] in
            let folder = try context.insertNewObject(forEntityName: "Folder")
            try folder.setValue("Inbox", forKey: "name")
            var uris: [String: URL] = [:]
            for (body, rank) in [("first", Int64(1)), ("second", 2)] {
                let note = try context.insertNewObject(forEntityName: "Note")
                try note.setValue(body, forKey: "body")
                try note.setValue(rank, forKey: "rank")
                try note.setValue("old", forKey: "legacy")
                try note.setValue(folder, forKey: "folder")
            }
            let scratch = try context.insertNewObject(forEntityName: "Scratch")
            try scratch.setValue("x", forKey: "text")
            try context.save()
            for note in try context.fetch(FetchRequest<ManagedObject>(entityName: "Note")) {
                uris[try note.value(forKey: "body") as? String ?? ""] = note.objectID.uriRepresentation
            }
            return uris
        }
        for store in container.persistentStoreCoordinator.persistentStores { try container.persistentStoreCoordinator.removePersistentStore(store) }
        return (description, uris)
    }

    private func fileContents(_ description: PersistentStoreDescription) throws -> Data {
        guard let url = description.url else { return Data() }
        return try Data(contentsOf: url)
    }

    func testAStoreSavedWithAnOlderVersionIsMigratedOnLoad() throws {
        for backend in Self.fileBacked {
            let directory = try TemporaryDirectory()
            let (description, uris) = try makeV1Store(backend, in: directory)
            let v2 = try Self.v2(sources: [try Self.v1()])
            let container = PersistentContainer(name: "Notes", managedObjectModel: v2)
            container.persistentStoreDescriptions = [description]
            try container.loadPersistentStores()
            let context = container.newBackgroundContext()
            try context.performAndWait {
                let memos = try context.fetch(FetchRequest<ManagedObject>(entityName: "Memo"))
                XCTAssertEqual(memos.count, 2, "\(backend)")
                for memo in memos {
                    let text = try memo.value(forKey: "text") as? String
                    XCTAssertNotNil(text, "\(backend): the renamed attribute keeps its value")
                    XCTAssertEqual(memo.objectID.uriRepresentation.path, uris[text ?? ""]?.path.replacingOccurrences(of: "/Note/", with: "/Memo/"), "\(backend): the object keeps its key")
                    XCTAssertEqual(try memo.value(forKey: "rank") as? Int64, text == "first" ? 1 : 2, "\(backend)")
                    XCTAssertEqual(try memo.value(forKey: "pinned") as? Bool, false, "\(backend): a new attribute takes its default")
                    let folders = try XCTUnwrap(try memo.value(forKey: "folders") as? Set<ManagedObject>, "\(backend)")
                    XCTAssertEqual(try folders.first?.value(forKey: "name") as? String, "Inbox", "\(backend): the to-one became a to-many")
                }
                let folder = try XCTUnwrap(try context.fetch(FetchRequest<ManagedObject>(entityName: "Folder")).first)
                XCTAssertEqual((try folder.value(forKey: "memos") as? Set<ManagedObject>)?.count, 2, "\(backend)")
                XCTAssertThrowsError(try context.fetch(FetchRequest<ManagedObject>(entityName: "Scratch")), "\(backend): the entity is gone")
                // The migrated store saves as any other.
                let memo = try context.insertNewObject(forEntityName: "Memo")
                try memo.setValue("third", forKey: "text")
                try context.save()
            }
            let store = try XCTUnwrap(container.persistentStoreCoordinator.persistentStores.first)
            XCTAssertTrue(v2.isConfiguration(withName: nil, compatibleWithStoreMetadata: store.metadata), "\(backend): the store records v2's hashes")
            // Reopened with v2 alone (no sources), it needs no migration.
            try container.persistentStoreCoordinator.removePersistentStore(store)
            let again = PersistentContainer(name: "Notes", managedObjectModel: try Self.v2(sources: []))
            again.persistentStoreDescriptions = [description]
            try again.loadPersistentStores()
            let reader = again.newBackgroundContext()
            let count = try reader.performAndWait { try reader.count(for: FetchRequest<ManagedObject>(entityName: "Memo")) }
            XCTAssertEqual(count, 3, "\(backend)")
        }
    }

    func testAChangeThatCannotBeInferredLeavesTheStoreUntouched() throws {
        let v3 = try Self.v1(bodyType: .date)
        v3.migrationSourceModels = [try Self.v1()]
        for backend in Self.fileBacked {
            let directory = try TemporaryDirectory()
            let (description, _) = try makeV1Store(backend, in: directory)
            let before = try fileContents(description)
            let container = PersistentContainer(name: "Notes", managedObjectModel: v3)
            container.persistentStoreDescriptions = [description]
            XCTAssertThrowsError(try container.loadPersistentStores(), "\(backend)") { error in
                guard let error = error as? MigrationError else { return XCTFail("\(backend): \(error)") }
                XCTAssertEqual(error.code, .cannotInferMapping, "\(backend)")
                XCTAssertEqual(error.key, "body", "\(backend)")
                XCTAssertTrue(error.message.contains("String becomes Date"), "\(backend): \(error.message)")
            }
            XCTAssertEqual(try fileContents(description), before, "\(backend): nothing written")
        }
    }

    func testReadOnlyStoresAndMigrationTurnedOffAreNeverMigrated() throws {
        for backend in Self.fileBacked {
            let directory = try TemporaryDirectory()
            let (description, _) = try makeV1Store(backend, in: directory)
            let before = try fileContents(description)
            var readOnly = description
            readOnly.isReadOnly = true
            var manual = description
            manual.shouldMigrateStoreAutomatically = false
            for variant in [readOnly, manual] {
                let container = PersistentContainer(name: "Notes", managedObjectModel: try Self.v2(sources: [try Self.v1()]))
                container.persistentStoreDescriptions = [variant]
                XCTAssertThrowsError(try container.loadPersistentStores(), "\(backend)")
                XCTAssertEqual(try fileContents(description), before, "\(backend): nothing written")
            }
            var noInference = description
            noInference.shouldInferMappingModelAutomatically = false
            let container = PersistentContainer(name: "Notes", managedObjectModel: try Self.v2(sources: [try Self.v1()]))
            container.persistentStoreDescriptions = [noInference]
            XCTAssertThrowsError(try container.loadPersistentStores(), "\(backend)") { error in
                XCTAssertEqual((error as? MigrationError)?.code, .missingMappingModel, "\(backend): \(error)")
            }
            XCTAssertEqual(try fileContents(description), before, "\(backend): nothing written")
        }
    }
}
