import Foundation
import Stowage
import StoreTestSupport
import XCTest

/// `import Stowage` alone makes the built-in store types available.
final class StowageTests: XCTestCase {
    final class Note: ManagedObject {
        @Attribute var text: String
    }

    func testBuiltInStoreTypesNeedNoRegistration() throws {
        XCTAssertTrue(PersistentStoreRegistry.registeredTypes.contains(.inMemory))
        let model = try ManagedObjectModel {
            EntityDescription("Note", class: Note.self) { .attribute("text", .string, optional: false, defaultValue: "") }
        }
        let container = PersistentContainer(name: "Notes", managedObjectModel: model)
        container.persistentStoreDescriptions = [PersistentStoreDescription(type: .inMemory)]
        let loaded = Counter()
        container.loadPersistentStores { _, error in
            XCTAssertNil(error)
            loaded.increment()
        }
        XCTAssertEqual(loaded.value, 1)
        let text = try container.viewContext.performAndWait {
            let note = try Note(context: container.viewContext)
            note.text = "hello"
            try container.viewContext.save()
            return try container.viewContext.fetch(FetchRequest<Note>()).map(\.text)
        }
        XCTAssertEqual(text, ["hello"])
    }

    func testBackgroundTaskSavesAreVisibleToTheViewContext() async throws {
        let model = try ManagedObjectModel {
            EntityDescription("Note", class: Note.self) { .attribute("text", .string) }
        }
        let container = PersistentContainer(name: "Notes", managedObjectModel: model)
        container.persistentStoreDescriptions = [PersistentStoreDescription(type: .inMemory)]
        try container.loadPersistentStores()
        let saved = try await container.performBackgroundTask { context in
            for n in 0..<3 {
                let note = try Note(context: context)
                note.text = "note \(n)"
            }
            try context.save()
            return context.registeredObjects.count
        }
        XCTAssertEqual(saved, 3)
        let count = try await container.viewContext.perform {
            try container.viewContext.count(for: FetchRequest<Note>())
        }
        XCTAssertEqual(count, 3)
    }
}
