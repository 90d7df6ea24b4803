import Foundation
import MemoryBackend
import StoreCore
import StoreTestSupport
import XCTest

/// Containers, store descriptions, routing by configuration, metadata and the store registry.
final class CoordinatorTests: XCTestCase {
    func testTwoContainersShareNothing() throws {
        let model = try BlogModel.make()
        let first = try TestStack.container(model)
        let second = try TestStack.container(model)
        try first.viewContext.performAndWait {
            let post = try Post(context: first.viewContext)
            post.title = "Only here"
            try first.viewContext.save()
        }
        XCTAssertEqual(try second.viewContext.performAndWait { try second.viewContext.count(for: FetchRequest<Post>()) }, 0)
        XCTAssertEqual(try first.viewContext.performAndWait { try first.viewContext.count(for: FetchRequest<Post>()) }, 1)
        XCTAssertNotEqual(first.persistentStoreCoordinator.persistentStores[0].identifier, second.persistentStoreCoordinator.persistentStores[0].identifier)
    }

    func testObjectsAreRoutedToTheStoreOfTheirConfiguration() throws {
        let people = PersistentStoreDescription(type: .inMemory, configuration: "People")
        let content = PersistentStoreDescription(type: .inMemory, configuration: "Content")
        let container = try TestStack.container(descriptions: [people, content])
        let stores = container.persistentStoreCoordinator.persistentStores
        XCTAssertEqual(stores.map(\.configurationName), ["People", "Content"])
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let author = try Author(context: context)
            author.name = "Ada"
            let post = try Post(context: context)
            post.title = "Routed"
            try context.save()
            XCTAssertEqual(author.objectID.storeIdentifier, stores[0].identifier)
            XCTAssertEqual(post.objectID.storeIdentifier, stores[1].identifier)
            XCTAssertEqual(try context.count(for: FetchRequest<Author>()), 1)
            XCTAssertEqual(try context.count(for: FetchRequest<Post>()), 1)
        }
        XCTAssertThrowsError(try container.persistentStoreCoordinator.addPersistentStore(with: PersistentStoreDescription(type: .inMemory, configuration: "Nope"))) { error in
            XCTAssertEqual((error as? ModelError)?.code, .unknownConfiguration)
        }
    }

    func testMetadataCanBeReadAndWritten() throws {
        let container = try TestStack.container()
        let coordinator = container.persistentStoreCoordinator
        let store = try XCTUnwrap(coordinator.persistentStores.first)
        var metadata = coordinator.metadata(for: store)
        XCTAssertEqual(metadata.storeType, "memory")
        XCTAssertEqual(metadata.storeUUID, store.identifier)
        XCTAssertEqual(metadata.modelVersionHashes, container.managedObjectModel.coreDataEntityVersionHashesByName, "Core Data's hashes, as Core Data's stores record them")
        metadata.userInfo["importedAt"] = .integer(42)
        try coordinator.setMetadata(metadata, for: store)
        XCTAssertEqual(coordinator.metadata(for: store).userInfo["importedAt"], .integer(42))
    }

    func testUnknownStoreTypeIsAClearError() throws {
        let container = PersistentContainer(name: "Nowhere", managedObjectModel: try BlogModel.make())
        container.persistentStoreDescriptions = [PersistentStoreDescription(type: PersistentStoreType(rawValue: "carrier-pigeon"))]
        XCTAssertThrowsError(try container.loadPersistentStores()) { error in
            XCTAssertEqual((error as? StoreError)?.code, .unknownStoreType)
            XCTAssertTrue("\(error)".contains("carrier-pigeon"))
        }
        let context = container.newBackgroundContext()
        try context.performAndWait {
            XCTAssertThrowsError(try context.fetch(FetchRequest<Post>())) { error in
                XCTAssertEqual((error as? StoreError)?.code, .noStores)
            }
        }
    }

    func testDefaultDescriptionIsSQLiteInTheXDGDataDirectory() throws {
        let container = PersistentContainer(name: "Blog", managedObjectModel: try BlogModel.make())
        let description = try XCTUnwrap(container.persistentStoreDescriptions.first)
        XCTAssertEqual(description.type, .sqlite)
        XCTAssertEqual(description.url?.lastPathComponent, "Blog.sqlite")
        XCTAssertEqual(description.url?.deletingLastPathComponent(), PersistentContainer.defaultDirectoryURL())
        XCTAssertTrue(description.shouldMigrateStoreAutomatically)
        XCTAssertTrue(description.shouldInferMappingModelAutomatically)
        XCTAssertTrue(PersistentContainer.defaultDirectoryURL().path.contains(".local/share") || ProcessInfo.processInfo.environment["XDG_DATA_HOME"] != nil)
    }

    func testReadOnlyStoreRefusesSaves() throws {
        var description = PersistentStoreDescription(type: .inMemory)
        description.isReadOnly = true
        let container = try TestStack.container(descriptions: [description])
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let post = try Post(context: context)
            post.title = "Nope"
            XCTAssertThrowsError(try context.save()) { error in
                XCTAssertEqual((error as? StoreError)?.code, .readOnly)
            }
            XCTAssertTrue(post.isInserted)
        }
    }

    func testAUserWrittenStorePlugsInByType() throws {
        /// A store that records what it was asked, delegating to an in-memory store.
        final class CountingStore: PersistentStore {
            let inner: AtomicStore
            let fetches = Counter()
            init(_ request: PersistentStoreLoadRequest) throws { inner = try MemoryStore.open(request) }
            var identifier: String { inner.identifier }
            var type: PersistentStoreType { PersistentStoreType(rawValue: "counting") }
            var url: URL? { nil }
            var configurationName: String? { inner.configurationName }
            var isReadOnly: Bool { false }
            var metadata: StoreMetadata { inner.metadata }
            func setMetadata(_ metadata: StoreMetadata) throws { try inner.setMetadata(metadata) }
            func execute(_ request: StoreFetchRequest) throws -> StoreFetchResult {
                fetches.increment()
                return try inner.execute(request)
            }
            func snapshot(for objectID: ManagedObjectID) throws -> StoreSnapshot? { try inner.snapshot(for: objectID) }
            func objectIDs(forRelationship name: String, of objectID: ManagedObjectID) throws -> [ManagedObjectID] {
                try inner.objectIDs(forRelationship: name, of: objectID)
            }
            func newObjectIDs(forEntityNames entityNames: [String]) throws -> [ManagedObjectID] { try inner.newObjectIDs(forEntityNames: entityNames) }
            func save(_ changes: StoreChangeSet) throws { try inner.save(changes) }
            func unload() throws {}
        }
        PersistentStoreRegistry.register(PersistentStoreType(rawValue: "counting")) { try CountingStore($0) }
        XCTAssertTrue(PersistentStoreRegistry.registeredTypes.contains(PersistentStoreType(rawValue: "counting")))
        let container = try TestStack.container(descriptions: [PersistentStoreDescription(type: PersistentStoreType(rawValue: "counting"))])
        let store = try XCTUnwrap(container.persistentStoreCoordinator.persistentStores.first as? CountingStore)
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let post = try Post(context: context)
            post.title = "Custom"
            try context.save()
            XCTAssertEqual(try context.fetch(FetchRequest<Post>()).map(\.title), ["Custom"])
        }
        XCTAssertEqual(store.fetches.value, 1)
        try container.persistentStoreCoordinator.removePersistentStore(store)
        XCTAssertTrue(container.persistentStoreCoordinator.persistentStores.isEmpty)
    }
}
