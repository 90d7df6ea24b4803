import Foundation
import Stowage
import XCTest

/// docs/sync.md, run with SQLite files for both the local store and the server (the page's
/// server is PostgreSQL; `SyncConvergenceTests` runs the engine against one).
final class DocsSyncExamples: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = try ExampleStack.makeDirectory()
    }

    override func tearDown() {
        ExampleStack.removeDirectory(directory)
        super.tearDown()
    }

    private func makeModel() throws -> ManagedObjectModel {
        let model = try ManagedObjectModel {
            EntityDescription("Note") {
                .attribute("title", .string)
                .toMany("tags", destination: "Tag", inverse: "notes")
            }
            EntityDescription("Tag") {
                .attribute("label", .string)
                .toMany("notes", destination: "Note", inverse: "tags")
            }
            SyncEngine.modelEntities()                   // the engine's identity map and tokens
        }
        return model
    }

    func testSettingUpAndSyncing() async throws {
        let model = try makeModel()
        let localURL = directory.appendingPathComponent("Notes.sqlite")
        let serverURL = directory.appendingPathComponent("Server.sqlite")
        var seedDescription = PersistentStoreDescription(url: localURL)
        seedDescription.isHistoryTrackingEnabled = true
        let seeded = try ExampleStack.container(seedDescription, model: model)
        try seeded.viewContext.insertNewObject(forEntityName: "Note").setValue("first", forKey: "title")
        try seeded.viewContext.save()
        ExampleStack.close(seeded)

        let local = PersistentContainer(name: "Notes", managedObjectModel: model)
        var description = PersistentStoreDescription(url: localURL)
        description.isHistoryTrackingEnabled = true
        local.persistentStoreDescriptions = [description]
        try local.loadPersistentStores()

        let server = PersistentContainer(name: "Notes", managedObjectModel: model)
        var serverDescription = PersistentStoreDescription(url: serverURL)   // postgres://app@db.internal/notes
        serverDescription.isHistoryTrackingEnabled = true
        serverDescription.setOption(true, forKey: .remoteChangeNotificationPost)
        server.persistentStoreDescriptions = [serverDescription]
        try server.loadPersistentStores()

        let engine = try SyncEngine(local: local, server: server)
        let summary = try await engine.sync()            // push, then pull
        print(summary.pushed, summary.pulled)

        XCTAssertEqual(summary.pushed.inserted, 1)
        XCTAssertEqual(try server.viewContext.count(for: FetchRequest<ManagedObject>(entityName: "Note")), 1)

        let context = local.newBackgroundContext()
        let identities = try context.performAndWait { try SyncEngine.globalIdentities(in: context) }
        for (objectID, globalID) in identities { print(objectID.entityName, globalID) }
        XCTAssertEqual(identities.count, 1)
        XCTAssertNotNil(UUID(uuidString: try XCTUnwrap(identities.values.first)), "a Note has relationships: a UUID of its own")

        var options = SyncEngine.Options()
        options.conflictResolver = { conflict in
            conflict.key == "title" ? .keepServer : .keepLocal
        }
        XCTAssertNotNil(options.conflictResolver)

        do {
            try await engine.sync()
        } catch SyncError.Code.historyTokenExpired {
            try await engine.resynchronize()
        }

        if let pushed = try engine.lastPushedToken() {
            let context = local.newBackgroundContext()
            try context.performAndWait {
                _ = try context.execute(PersistentHistoryChangeRequest.deleteHistory(before: pushed))
            }
        }
        try await engine.sync()                          // the pushed token is still valid

        engine.startLiveSync()
        let watcher = Task {
            for await event in engine.events() where event.endDate != nil && !event.succeeded {
                print("sync \(event.type) failed:", event.error.map { "\($0)" } ?? "")
            }
        }
        XCTAssertTrue(engine.isLiveSyncing)
        engine.stopLiveSync()
        watcher.cancel()
    }
}
