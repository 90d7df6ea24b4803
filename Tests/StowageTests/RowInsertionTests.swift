import Foundation
import StoreCore
import StoreTestSupport
import XCTest

/// Rows written with a context's save (`StoreRowInsertion`, what the sync engine writes pulled
/// objects with), on every store type: one transaction with the context's own changes, seen by
/// other contexts and history as ordinary inserts, and nothing written when any part fails.
final class RowInsertionTests: XCTestCase {
    private func makeModel() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Item") {
                .attribute("name", .string)
                .attribute("count", .integer64, optional: false, defaultValue: .integer(0))
            }
            EntityDescription("Folder") {
                .attribute("title", .string)
                .toMany("notes", destination: "Note", inverse: "folder")
            }
            EntityDescription("Note") {
                .attribute("text", .string)
                .toOne("folder", destination: "Folder", inverse: "notes")
            }
        }
    }

    private func container(_ backend: StoreBackend, _ directory: TemporaryDirectory, _ model: ManagedObjectModel) throws -> PersistentContainer {
        let container = PersistentContainer(name: "Rows", managedObjectModel: model)
        var description = backend.description(named: "rows", in: directory)
        description.isHistoryTrackingEnabled = true
        container.persistentStoreDescriptions = [description]
        try container.loadPersistentStores()
        return container
    }

    /// Runs `body` on every store type, with a new store of the test model and its `Item` entity.
    private func onEveryStore(_ body: (StoreBackend, TemporaryDirectory, PersistentContainer, EntityDescription) throws -> Void) throws {
        for backend in StoreBackend.all {
            let directory = try TemporaryDirectory()
            let model = try makeModel()
            try body(backend, directory, try container(backend, directory, model), try model.entity(named: "Item"))
        }
    }

    private func rows(_ names: [String], entity: EntityDescription) -> StoreRowInsertion {
        StoreRowInsertion(entityNames: names.map { _ in entity.name }) { ids in
            zip(ids, names).map { id, name in
                var snapshot = StoreSnapshot(objectID: id, version: 1, entity: entity)
                snapshot["name"] = .string(name)
                snapshot["count"] = .integer(Int64(name.count))
                return snapshot
            }
        }
    }

    private func itemNames(_ container: PersistentContainer) throws -> [String] {
        let reader = container.newBackgroundContext()
        return try reader.performAndWait {
            try reader.fetch(FetchRequest<ManagedObject>(entityName: "Item")).compactMap { try $0.value(forKey: "name") as? String }.sorted()
        }
    }

    func testRowsAreWrittenInTheSaveTransactionAndSeenAsInsertedObjects() throws {
        try onEveryStore { backend, directory, container, item in
            let viewer = container.newBackgroundContext()
            viewer.automaticallyMergesChangesFromParent = true
            let seen = try viewer.performAndWait { try viewer.fetch(FetchRequest<ManagedObject>(entityName: "Item")) }
            XCTAssertEqual(seen.count, 0, "\(backend)")

            let writer = container.newBackgroundContext()
            writer.transactionAuthor = "importer"
            let saved = try writer.performAndWait {
                let folder = try writer.insertNewObject(forEntityName: "Folder")
                try folder.setValue("inbox", forKey: "title")
                writer.insertRowsWithNextSave(rows(["a", "bb", "ccc"], entity: item))
                let ids = LockedBox<Set<ManagedObjectID>>([])
                let observer = NotificationCenter.default.addObserver(forName: .managedObjectContextDidSaveObjectIDs, object: writer, queue: nil) { note in
                    ids.value = note.contextChanges?.insertedObjectIDs ?? []
                }
                defer { NotificationCenter.default.removeObserver(observer) }
                try writer.save()
                XCTAssertFalse(writer.hasPendingRowInsertions, "\(backend)")
                return ids.value
            }
            XCTAssertEqual(saved.count, 4, "\(backend): the folder and the three rows are among the inserted objects")
            XCTAssertEqual(Set(saved.map(\.entityName)), ["Folder", "Item"], "\(backend)")
            XCTAssertEqual(try itemNames(container), ["a", "bb", "ccc"], "\(backend)")

            // One transaction, under the writer's author, holding the folder and the rows.
            let history = try writer.performAndWait {
                try writer.execute(PersistentHistoryChangeRequest.fetchHistory(after: nil as PersistentHistoryToken?)).transactions ?? []
            }
            XCTAssertEqual(history.count, 1, "\(backend)")
            XCTAssertEqual(history.first?.author, "importer", "\(backend)")
            XCTAssertEqual(history.first?.changes?.filter { $0.changeType == .insert }.count, 4, "\(backend)")

            // Another context sees the rows.
            let merged = try viewer.performAndWait { try viewer.fetch(FetchRequest<ManagedObject>(entityName: "Item")).count }
            XCTAssertEqual(merged, 3, "\(backend)")

            if backend.isFileBacked {
                let reopened = try self.container(backend, directory, try makeModel())
                XCTAssertEqual(try itemNames(reopened), ["a", "bb", "ccc"], "\(backend): the rows are in the file")
            }
        }
    }

    func testAFailingRowBuilderWritesNothingOfTheSave() throws {
        struct Refused: Error {}
        try onEveryStore { backend, directory, container, item in
            let writer = container.newBackgroundContext()
            try writer.performAndWait {
                let folder = try writer.insertNewObject(forEntityName: "Folder")
                try folder.setValue("inbox", forKey: "title")
                writer.insertRowsWithNextSave(rows(["a"], entity: item))
                writer.insertRowsWithNextSave(StoreRowInsertion(entityNames: ["Item"]) { _ in throw Refused() })
                XCTAssertThrowsError(try writer.save(), "\(backend)") { XCTAssertTrue($0 is Refused, "\(backend): \($0)") }
                XCTAssertTrue(writer.hasChanges, "\(backend): the context keeps its changes")
            }
            let reader = container.newBackgroundContext()
            let counts = try reader.performAndWait {
                (try reader.count(for: FetchRequest<ManagedObject>(entityName: "Folder")), try reader.count(for: FetchRequest<ManagedObject>(entityName: "Item")))
            }
            XCTAssertEqual(counts.0, 0, "\(backend): the folder was not saved")
            XCTAssertEqual(counts.1, 0, "\(backend): no row was saved")

            // Rolled back, the rows are gone; the next save writes only what comes after.
            try writer.performAndWait {
                writer.rollback()
                XCTAssertFalse(writer.hasPendingRowInsertions, "\(backend)")
                writer.insertRowsWithNextSave(rows(["z"], entity: item))
                try writer.save()
            }
            XCTAssertEqual(try itemNames(container), ["z"], "\(backend)")
        }
    }

    /// A builder that learns from the keys how many rows it needs may leave IDs unused; one
    /// that returns an ID it was not given, or the same one twice, writes nothing.
    func testABuilderMayLeaveIDsUnusedButNotMakeUpIDs() throws {
        try onEveryStore { backend, directory, container, item in
            let writer = container.newBackgroundContext()
            let used = try writer.performAndWait {
                writer.insertRowsWithNextSave(StoreRowInsertion(entityNames: Array(repeating: "Item", count: 4)) { ids in
                    [ids[1], ids[3]].map { id in
                        var snapshot = StoreSnapshot(objectID: id, version: 1, entity: item)
                        snapshot["name"] = .string("key \(id.primaryKey ?? 0)")
                        return snapshot
                    }
                })
                try writer.save()
                return try writer.fetch(FetchRequest<ManagedObject>(entityName: "Item")).compactMap(\.objectID.primaryKey).sorted()
            }
            XCTAssertEqual(used.count, 2, "\(backend)")
            XCTAssertEqual(try itemNames(container), used.map { "key \($0)" }, "\(backend)")

            for makeUp in [{ (ids: [ManagedObjectID]) in [ids[0], ids[0]] }, { (ids: [ManagedObjectID]) in [ids[1], ids[0]] }] {
                try writer.performAndWait {
                    writer.insertRowsWithNextSave(StoreRowInsertion(entityNames: ["Item", "Item"]) { ids in
                        makeUp(ids).map { StoreSnapshot(objectID: $0, version: 1, entity: item) }
                    })
                    XCTAssertThrowsError(try writer.save(), "\(backend)") {
                        XCTAssertEqual(($0 as? StoreError)?.code, .unsupportedRequest, "\(backend): \($0)")
                    }
                    writer.rollback()
                }
            }
            XCTAssertEqual(try itemNames(container).count, 2, "\(backend): nothing more was written")
        }
    }

    func testRowsOfEntitiesWithRelationshipsAreRefused() throws {
        for backend in StoreBackend.all {
            let directory = try TemporaryDirectory()
            let model = try makeModel()
            let container = try container(backend, directory, model)
            let folder = try model.entity(named: "Folder")
            let writer = container.newBackgroundContext()
            try writer.performAndWait {
                writer.insertRowsWithNextSave(StoreRowInsertion(entityNames: ["Folder"]) { ids in
                    ids.map { StoreSnapshot(objectID: $0, version: 1, entity: folder) }
                })
                XCTAssertThrowsError(try writer.save(), "\(backend)") { error in
                    XCTAssertEqual((error as? StoreError)?.code, .unsupportedRequest, "\(backend): \(error)")
                }
            }
            let count = try writer.performAndWait { try writer.count(for: FetchRequest<ManagedObject>(entityName: "Folder")) }
            XCTAssertEqual(count, 0, "\(backend)")
        }
    }
}
