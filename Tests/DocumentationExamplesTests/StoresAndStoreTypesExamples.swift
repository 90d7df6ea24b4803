import Foundation
import Stowage
import XCTest

/// StoresAndStoreTypes.md: descriptions of every type, options, copying a store into another
/// type, backups, restoring and destroying, closing stores, read-only and inspection opening.
final class StoresAndStoreTypesExamples: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = try ExampleStack.makeDirectory()
    }

    override func tearDown() {
        ExampleStack.removeDirectory(directory)
        super.tearDown()
    }

    func testStoreTypesCopyingClosingAndReading() throws {
        let model = try ExampleStack.model()

        let memory = PersistentStoreDescription(type: .inMemory)
        let sqlite = PersistentStoreDescription(url: directory.appendingPathComponent("Blog.sqlite"))
        let xml = PersistentStoreDescription(type: .xml, url: directory.appendingPathComponent("Blog.xml"))
        let binary = PersistentStoreDescription(type: .binary, url: directory.appendingPathComponent("Blog.plist"))
        let server = PersistentStoreDescription(url: URL(string: "postgres://app@db.example.com/blog")!)
        print(sqlite.type, server.type)                           // sqlite postgres

        XCTAssertEqual(sqlite.type, .sqlite)
        XCTAssertEqual(server.type, .postgres)
        // Every file type and the in-memory store hold the same objects the same way.
        for description in [memory, xml, binary] {
            let other = try ExampleStack.seeded(description)
            XCTAssertEqual(try other.viewContext.count(for: FetchRequest<Post>()), 3, "\(description)")
            XCTAssertEqual(other.persistentStoreCoordinator.persistentStores.first?.type, description.type)
            ExampleStack.close(other)
        }

        let container = PersistentContainer(name: "Blog", managedObjectModel: model)
        container.persistentStoreDescriptions = [sqlite]
        try container.loadPersistentStores()

        let seeding = container.newBackgroundContext()
        try seeding.performAndWait {
            try ExampleStack.seed(seeding)
            try seeding.save()
        }

        let coordinator = container.persistentStoreCoordinator
        let exported = try coordinator.migratePersistentStore(
            coordinator.persistentStores[0], to: directory.appendingPathComponent("Export.xml"), type: .xml)
        print(exported.type)                                      // xml

        XCTAssertEqual(exported.type, .xml)
        XCTAssertTrue(coordinator.persistentStores.first === exported, "the new store took the old one's place")
        XCTAssertEqual(try container.viewContext.count(for: FetchRequest<Post>()), 3)

        for store in coordinator.persistentStores {
            try coordinator.removePersistentStore(store)
        }
        print(coordinator.persistentStores.isEmpty)               // true

        XCTAssertTrue(coordinator.persistentStores.isEmpty)
        XCTAssertThrowsError(try container.viewContext.count(for: FetchRequest<Post>()), "no store holds posts any more")

        var readOnly = PersistentStoreDescription(url: directory.appendingPathComponent("Blog.sqlite"))
        readOnly.isReadOnly = true
        let viewer = PersistentContainer(name: "Viewer", managedObjectModel: model)
        viewer.persistentStoreDescriptions = [readOnly]
        try viewer.loadPersistentStores()

        XCTAssertEqual(try viewer.viewContext.count(for: FetchRequest<Post>()), 3)
        _ = try Post(context: viewer.viewContext)
        XCTAssertThrowsError(try viewer.viewContext.save()) { error in
            XCTAssertEqual((error as? StoreError)?.code, .readOnly, "\(error)")
        }
        viewer.viewContext.rollback()
        ExampleStack.close(viewer)

        let storeURL = directory.appendingPathComponent("Blog.sqlite")
        print(try PersistentStoreType(detectingStoreAt: storeURL))   // sqlite, from the file's first bytes
        let inferred = try InferredModel(storeAt: storeURL)
        let inspector = PersistentContainer(name: "Inspect", managedObjectModel: inferred.model)
        inspector.persistentStoreDescriptions = [.inspecting(storeURL, type: inferred.storeType)]
        try inspector.loadPersistentStores()
        let rows = try inspector.viewContext.fetch(FetchRequest<ManagedObject>(entityName: "Post"))
        print(try rows.map { try $0.value(forKey: "title") as? String ?? "" })

        XCTAssertEqual(try PersistentStoreType(detectingStoreAt: storeURL), .sqlite)
        XCTAssertEqual(inferred.storeType, .sqlite)
        XCTAssertEqual(try rows.map { try $0.value(forKey: "title") as? String ?? "" }.sorted(), ["Harbour Lights", "Misty Morning", "Northern Sky"])
        XCTAssertEqual(inferred.source, .modelCache, "Stowage caches its model in the store, as Core Data does")
        XCTAssertFalse(inspector.managedObjectModel.isInferred, "the store's own model, not one rebuilt from its layout")
        ExampleStack.close(inspector)
    }

    func testBackupsRestoringAndDestroying() throws {
        let container = try ExampleStack.seeded(PersistentStoreDescription(url: directory.appendingPathComponent("Blog.sqlite")))
        let coordinator = container.persistentStoreCoordinator
        let writer = container.newBackgroundContext()

        let live = directory.appendingPathComponent("Blog.sqlite")
        let backup = directory.appendingPathComponent("Backup.sqlite")
        try coordinator.replacePersistentStore(at: backup, withPersistentStoreFrom: live, type: .sqlite)

        // A save after the backup, which restoring takes back.
        try writer.performAndWait {
            try Post(context: writer).title = "After the backup"
            try writer.save()
        }
        XCTAssertEqual(try container.viewContext.count(for: FetchRequest<Post>()), 4)

        if let store = coordinator.persistentStore(for: live) { try coordinator.removePersistentStore(store) }
        try coordinator.replacePersistentStore(at: live, withPersistentStoreFrom: backup, type: .sqlite)
        try coordinator.addPersistentStore(with: PersistentStoreDescription(url: live))

        try coordinator.destroyPersistentStore(at: backup, type: .sqlite)   // every file of it

        container.viewContext.reset()
        XCTAssertEqual(try container.viewContext.count(for: FetchRequest<Post>()), 3, "the backup's three posts")
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains("Backup") }
        XCTAssertEqual(left, [], "nothing of the backup is left")
        ExampleStack.close(container)
    }

    func testOptions() throws {
        var tracked = PersistentStoreDescription(url: directory.appendingPathComponent("Tracked.sqlite"))
        tracked.isHistoryTrackingEnabled = true                 // NSPersistentHistoryTrackingKey
        tracked.setOption(true, forKey: .remoteChangeNotificationPost)
        tracked.shouldMigrateStoreAutomatically = true          // on by default, as in Core Data
        tracked.shouldInferMappingModelAutomatically = true     // on by default
        tracked.timeout = 10                                    // seconds to wait for a locked store
        tracked.configuration = nil                             // every entity; or a configuration's name

        XCTAssertEqual(tracked.options[.persistentHistoryTracking], .boolean(true))
        XCTAssertEqual(tracked.timeout, 10)
        XCTAssertTrue(PersistentStoreDescription(type: .inMemory).shouldMigrateStoreAutomatically)
        let container = try ExampleStack.container(tracked)
        XCTAssertEqual(container.persistentStoreCoordinator.persistentStores.count, 1)
        ExampleStack.close(container)
    }
}
