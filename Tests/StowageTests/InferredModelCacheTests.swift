import Foundation
@testable import SQLiteBackend
import Stowage
import StoreTestSupport
import Testing

/// Inspection mode on Apple-written SQLite stores: the store's own model cache (`Z_MODELCACHE`)
/// is used when there is one that reads, the layout otherwise, and a damaged cache falls back to
/// the layout with a note saying why.
@Suite struct InferredModelCacheTests {
    static let cachedStores = [
        "bignerdranch__CoreDataStack/TestModel.sqlite", "duckduckgo__BrowserServicesKit/Bookmarks_V1.sqlite",
        "duckduckgo__BrowserServicesKit/Bookmarks_V4.sqlite", "duckduckgo__BrowserServicesKit/SyncMetadata_V3.sqlite",
        "kean__Pulse/bigstore.pulse", "kean__Pulse/logs-package.pulse/logs.sqlite",
    ]

    @Test(arguments: cachedStores) func aStoreWithAModelCacheIsReadWithIt(_ path: String) throws {
        let directory = try TemporaryDirectory()
        guard let url = try CoreDataFixtures.copyOfStore(path, into: directory.url) else { return }
        let inferred = try InferredModel(storeAt: url)
        #expect(inferred.source == .modelCache)
        #expect(inferred.storeType == .sqlite)
        #expect(inferred.notes.isEmpty, "\(inferred.notes)")
        #expect(inferred.metadata["NSStoreType"] == "SQLite", "the store's metadata as recorded")
        // The layout-inferred model names attributes as the columns do (lower-cased); the cache
        // has the model's own names.
        let layout = try InferredModel(sqliteStoreAt: url)
        #expect(layout.source == .storeLayout)
        #expect(Set(inferred.model.entities.map(\.name)) == Set(layout.model.entities.map(\.name)))
        // The store opens read-only with it and every object reads.
        let container = PersistentContainer(name: "Inspect", managedObjectModel: inferred.model)
        container.persistentStoreDescriptions = [.inspecting(url, type: .sqlite)]
        try container.loadPersistentStores()
        let context = container.newBackgroundContext()
        let counts = try context.performAndWait { () throws -> [(fetched: Int, counted: Int)] in
            try inferred.model.entities.map { entity in
                var request = FetchRequest<ManagedObject>(entityName: entity.name)
                request.includesSubentities = false
                return (try context.fetch(request).count, try context.count(for: request))
            }
        }
        #expect(counts.allSatisfy { $0.fetched == $0.counted }, "\(counts)")
        #expect(counts.count == inferred.model.entities.count)
    }

    @Test func aStoreWithoutACacheIsInferredFromItsLayout() throws {
        let directory = try TemporaryDirectory()
        guard let url = try CoreDataFixtures.copyOfStore("fruitsamples__iPhoneCoreDataRecipes/Recipes.sqlite", into: directory.url) else { return }
        #expect(try InferredModel(storeAt: url).source == .storeLayout)
    }

    @Test func aDamagedCacheFallsBackToTheLayoutWithANote() throws {
        let directory = try TemporaryDirectory()
        guard let url = try CoreDataFixtures.copyOfStore("bignerdranch__CoreDataStack/TestModel.sqlite", into: directory.url) else { return }
        do {
            let connection = try SQLiteConnection(path: url.path, mode: .readWrite, log: .disabled)
            try connection.execute("UPDATE Z_MODELCACHE SET Z_CONTENT = x'DEADBEEF'")
        }
        let inferred = try InferredModel(storeAt: url)
        #expect(inferred.source == .storeLayout)
        #expect(inferred.notes.contains { $0.contains("Z_MODELCACHE") && $0.contains("rebuilt from the store's layout") }, "\(inferred.notes)")
        #expect(inferred.model.entitiesByName["Author"] != nil)
    }
}
