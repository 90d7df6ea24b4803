import Foundation
import StoreCore
import StoreTestSupport
import XCTest

/// A full disk (a 1 MiB tmpfs): saves fail with a typed error, the context keeps its unsaved
/// changes, and the store opens afterwards holding exactly every acknowledged save.
final class DiskFullTests: XCTestCase {
    func testAFullDiskFailsSavesButLosesNoAcknowledgedOne() throws {
        for backend in [StoreBackend.sqlite, .xml, .binary] {
            guard let disk = TemporaryFileSystem(size: "1m") else {
                throw XCTSkip("this test mounts a 1 MiB tmpfs; mounting is not permitted here")
            }
            backend.register()
            let url = disk.url.appendingPathComponent("Notes.\(backend.fileExtension ?? "store")")
            let model = try ManagedObjectModel { EntityDescription("Note") { .attribute("text", .string) } }
            let description = PersistentStoreDescription(type: backend.type, url: url)
            let container = PersistentContainer(name: "Notes", managedObjectModel: model)
            container.persistentStoreDescriptions = [description]
            try container.loadPersistentStores()
            let context = container.newBackgroundContext()
            // Distinct values (the binary format stores a repeated string once).
            var generator = SeededGenerator(state: 7)
            func text() -> String { String((0..<4_000).map { _ in Character(UnicodeScalar(UInt8.random(in: 97...122, using: &generator))) }) }
            var acknowledged = 0
            var failure: (any Error)?
            try context.performAndWait {
                for _ in 0..<200 {
                    for _ in 0..<5 { try context.insertNewObject(forEntityName: "Note").setValue(text(), forKey: "text") }
                    do {
                        try context.save()
                        acknowledged += 5
                    } catch {
                        failure = error
                        break
                    }
                }
                XCTAssertEqual(context.insertedObjects.count, failure == nil ? 0 : 5, "\(backend): a failed save keeps its changes")
            }
            let error = try XCTUnwrap(failure, "\(backend): the disk never filled")
            XCTAssertTrue(error is StoreError, "\(backend): \(type(of: error)) \(error)")
            XCTAssertGreaterThan(acknowledged, 0, "\(backend)")
            for store in container.persistentStoreCoordinator.persistentStores { try? container.persistentStoreCoordinator.removePersistentStore(store) }

            let reopened = PersistentContainer(name: "Notes", managedObjectModel: model)
            var readOnly = description
            readOnly.isReadOnly = true
            reopened.persistentStoreDescriptions = [readOnly]
            try reopened.loadPersistentStores()
            let reader = reopened.newBackgroundContext()
            let count = try reader.performAndWait { try reader.count(for: FetchRequest<ManagedObject>(entityName: "Note")) }
            XCTAssertEqual(count, acknowledged, "\(backend): every acknowledged save, nothing of the failed one")
            for store in reopened.persistentStoreCoordinator.persistentStores { try? reopened.persistentStoreCoordinator.removePersistentStore(store) }
        }
    }
}
