import Foundation
import Stowage
import StowageTestKit
import Synchronization
import XCTest

/// docs/writing-a-store.md's store: rows by object ID, read and written by name. It answers
/// unfiltered, unsorted fetches only (enough for contexts to save, fetch and fault), and keeps
/// everything behind one lock, since a store is called from any thread.
final class DictionaryStore: PersistentStore {
    struct Row {
        var version: Int64
        var values: [String: StoreValue]
        var toMany: [String: [ManagedObjectID]]
    }
    struct State {
        var rows: [ManagedObjectID: Row] = [:]
        var nextKey: Int64 = 1
        var metadata: StoreMetadata
    }

    let identifier = UUID().uuidString
    let type = PersistentStoreType(rawValue: "dictionary")
    let url: URL? = nil
    let configurationName: String? = nil
    let isReadOnly = false
    let model: ManagedObjectModel
    private let state: Synchronization.Mutex<State>   // qualified: StoreCore has a Mutex of its own in sanitizer builds

    init(model: ManagedObjectModel) {
        self.model = model
        state = Synchronization.Mutex(State(metadata: StoreMetadata(storeType: "dictionary", modelVersionHashes: model.coreDataEntityVersionHashesByName)))
    }

    var metadata: StoreMetadata { state.withLock { $0.metadata } }
    func setMetadata(_ metadata: StoreMetadata) throws { state.withLock { $0.metadata = metadata } }

    func execute(_ request: StoreFetchRequest) throws -> StoreFetchResult {
        guard request.predicate == nil, request.sortDescriptors.isEmpty else {
            throw FetchError(.unsupported, "this store answers unfiltered, unsorted fetches only")
        }
        let entity = try model.entity(named: request.entityName)
        let names = request.includesSubentities ? entity.entityAndDescendantNames : [entity.name]
        let ids = state.withLock { $0.rows.keys.filter { names.contains($0.entityName) } }.sorted { ($0.primaryKey ?? 0) < ($1.primaryKey ?? 0) }
        switch request.resultType {
        case .count: return .count(ids.count)
        case .managedObjectID: return .objectIDs(ids)
        case .managedObject: return .snapshots(try ids.compactMap { try snapshot(for: $0) })
        case .dictionary: throw FetchError(.unsupported, "this store gives no dictionary results")
        }
    }

    func snapshot(for objectID: ManagedObjectID) throws -> StoreSnapshot? {
        guard let row = state.withLock({ $0.rows[objectID] }) else { return nil }
        return try StoreSnapshot(objectID: objectID, version: row.version,
                                 entity: model.entity(named: objectID.entityName),
                                 values: row.values)            // [String: StoreValue]; throws for an unknown name
    }

    func save(_ changes: StoreChangeSet) throws {
        try state.withLock { state in                          // one lock: the save is all or nothing
            for change in changes.updated + changes.deleted where state.rows[change.objectID]?.version != change.version {
                throw MergeConflictError(conflicts: [MergeConflict(objectID: change.objectID, expectedVersion: change.version,
                                                                   storeVersion: state.rows[change.objectID]?.version ?? 0, storeSnapshot: nil)])
            }
            for inserted in changes.inserted {                 // complete snapshots, in insertion order
                state.rows[inserted.objectID] = Row(version: 1, values: inserted.valuesByName, toMany: inserted.toManyByName)
            }
            for update in changes.updated {                    // only the changed properties
                for (index, value) in update.heldValues { state.rows[update.objectID]?.values[update.entity.properties[index].name] = value }
                state.rows[update.objectID]?.toMany.merge(update.toManyByName) { $1 }
                state.rows[update.objectID]?.version += 1
            }
            for deleted in changes.deleted { state.rows[deleted.objectID] = nil }
        }
    }

    func objectIDs(forRelationship name: String, of objectID: ManagedObjectID) throws -> [ManagedObjectID] {
        state.withLock { $0.rows[objectID]?.toMany[name] ?? [] }
    }

    func newObjectIDs(forEntityNames entityNames: [String]) throws -> [ManagedObjectID] {
        state.withLock { state in
            entityNames.map { name in
                defer { state.nextKey += 1 }
                return ManagedObjectID(entityName: name, storeIdentifier: identifier, primaryKey: state.nextKey)
            }
        }
    }

    func unload() throws {}
}

/// docs/writing-a-store.md's `MyStore`: a file store of your own, here the JSON document of
/// docs/atomic-stores.md (with the metadata that page's short version leaves out), on the
/// atomic engine.
enum MyStore {
    static let type = PersistentStoreType(rawValue: "mine")

    static func register() { AtomicStore.register(type, format: Format()) }

    struct File: Codable {
        var document: DocsAtomicStoresExamples.Document
        var modelVersionHashes: [String: Data]
        var userInfo: [String: DocsAtomicStoresExamples.Document.Value]
    }

    struct Format: AtomicStoreFormat {
        func read(_ data: Data, model: ManagedObjectModel) throws -> AtomicStoreFile {
            let file = try JSONDecoder().decode(File.self, from: data)
            var metadata = StoreMetadata(storeUUID: file.document.uuid, storeType: MyStore.type.rawValue)
            metadata.modelVersionHashes = file.modelVersionHashes
            metadata.userInfo = file.userInfo.mapValues(\.storeValue)
            return AtomicStoreFile(metadata: metadata, nextPrimaryKey: file.document.nextKey, objects: file.document.objects.map(\.object))
        }
        func write(_ file: AtomicStoreFile, model: ManagedObjectModel) throws -> Data {
            try JSONEncoder().encode(File(document: DocsAtomicStoresExamples.Document(file), modelVersionHashes: file.metadata.modelVersionHashes,
                                          userInfo: file.metadata.userInfo.filter { !$0.value.isNull }.mapValues(DocsAtomicStoresExamples.Document.Value.init)))
        }
    }
}

// docs/writing-a-store.md, "Testing your store": the shared suite on MyStore.
final class MyStoreTests: XCTestCase {
    func testTheSharedSuite() {
        MyStore.register()
        let kit = StoreTestKit("my store") { name, directory in
            // `name` is unique to each store the kit asks for; `directory` is a fresh temporary one.
            PersistentStoreDescription(type: MyStore.type, url: directory.appendingPathComponent("\(name).mine"))
        }
        kit.runAll()
    }
}

/// docs/writing-a-store.md: the dictionary store registered, loaded, saved to and read from.
final class DocsWritingAStoreExamples: XCTestCase {
    func testAStoreOfYourOwn() throws {
        let container = PersistentContainer(name: "Blog", managedObjectModel: try ExampleStack.model())

        PersistentStoreRegistry.register(PersistentStoreType(rawValue: "dictionary")) { request in
            DictionaryStore(model: request.model)
        }
        container.persistentStoreDescriptions = [PersistentStoreDescription(type: PersistentStoreType(rawValue: "dictionary"))]
        try container.loadPersistentStores()

        let writer = container.newBackgroundContext()
        try writer.performAndWait {
            try ExampleStack.seed(writer)
            try writer.save()
            let posts = try writer.fetch(FetchRequest<Post>())
            posts[0].title = "Renamed"
            writer.delete(posts[1])
            try writer.save()
        }
        let reader = container.newBackgroundContext()
        try reader.performAndWait {
            let posts = try reader.fetch(FetchRequest<Post>())
            XCTAssertEqual(posts.count, 2)
            XCTAssertTrue(posts.map(\.title).contains("Renamed"))
            XCTAssertEqual(try reader.count(for: FetchRequest<Comment>()), posts.map(\.comments.count).reduce(0, +), "cascaded")
        }
    }
}
