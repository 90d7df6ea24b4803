import Foundation
import StoreCore
import Synchronization

/// The in-memory store: the whole graph in memory, every fetch evaluated in memory, nothing
/// written anywhere. Each store is independent, so every container that loads one starts
/// empty and shares nothing — the store to use for test fixtures.
///
/// For example:
///
/// ```swift
/// MemoryStore.register()          // done for you by `import Stowage`
/// let container = PersistentContainer(name: "Fixture", managedObjectModel: model)
/// container.persistentStoreDescriptions = [PersistentStoreDescription(type: .inMemory)]
/// try container.loadPersistentStores()
/// ```
public final class MemoryStore: PersistentStore {
    public let identifier: String
    public let type: PersistentStoreType = .inMemory
    public let url: URL?
    public let configurationName: String?
    public let isReadOnly: Bool

    private struct State {
        var graph: SnapshotGraph
        var metadata: StoreMetadata
        var nextPrimaryKey: Int64 = 1
        /// One ID per entity whose entity-and-store part new IDs share.
        var idPrototypes: [String: ManagedObjectID] = [:]
    }
    private let state: Mutex<State>

    /// Opens a new, empty in-memory store for a description.
    public init(_ request: PersistentStoreLoadRequest) throws {
        let description = request.description
        _ = try request.model.entities(forConfiguration: description.configuration)
        let metadata = StoreMetadata(storeType: PersistentStoreType.inMemory.rawValue, modelVersionHashes: request.model.entityVersionHashesByName)
        identifier = metadata.storeUUID
        url = description.url
        configurationName = description.configuration
        isReadOnly = description.isReadOnly
        state = Mutex(State(graph: SnapshotGraph(model: request.model), metadata: metadata))
    }

    /// Registers the in-memory store type (``PersistentStoreType/inMemory``).
    public static func register() {
        PersistentStoreRegistry.register(.inMemory) { try MemoryStore($0) }
    }

    public var metadata: StoreMetadata { state.withLock { $0.metadata } }

    public func setMetadata(_ metadata: StoreMetadata) throws {
        state.withLock { state in
            var updated = metadata
            updated.storeUUID = state.metadata.storeUUID
            updated.storeType = state.metadata.storeType
            state.metadata = updated
        }
    }

    public func execute(_ request: StoreFetchRequest) throws -> StoreFetchResult {
        try state.withLock { try $0.graph.execute(request) }
    }

    public func snapshot(for objectID: ManagedObjectID) throws -> StoreSnapshot? {
        state.withLock { $0.graph[objectID] }
    }

    public func objectIDs(forRelationship name: String, of objectID: ManagedObjectID) throws -> [ManagedObjectID] {
        state.withLock { $0.graph.objectIDs(forRelationship: name, of: objectID) }
    }

    public func newObjectIDs(forEntityNames entityNames: [String]) throws -> [ManagedObjectID] {
        state.withLock { state in
            entityNames.map { name in
                defer { state.nextPrimaryKey += 1 }
                if let prototype = state.idPrototypes[name] {
                    return ManagedObjectID(primaryKey: state.nextPrimaryKey, sameEntityAndStoreAs: prototype)
                }
                let id = ManagedObjectID(entityName: name, storeIdentifier: identifier, primaryKey: state.nextPrimaryKey)
                state.idPrototypes[name] = id
                return id
            }
        }
    }

    public func save(_ changes: StoreChangeSet) throws {
        guard !isReadOnly else { throw StoreError(.readOnly, url: url, "the store is read-only; nothing was saved") }
        for snapshot in changes.inserted + changes.updated + changes.deleted where snapshot.objectID.storeIdentifier != identifier {
            throw StoreError(.wrongStore, objectID: snapshot.objectID, "the change names an object of another store")
        }
        try state.withLock { try $0.graph.apply(changes) }
    }

    public func unload() throws {}
}
