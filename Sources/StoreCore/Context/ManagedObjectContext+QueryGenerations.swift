import Foundation

extension ManagedObjectContext {
    /// The generation the context is pinned to, or `nil` when it reads the latest committed
    /// state. Hand it to another context's ``setQueryGenerationFrom(_:)`` to read the same state.
    public var queryGenerationToken: QueryGenerationToken? {
        checkQueue(accessing: nil)
        return generationReader?.generation.token
    }

    /// Pins the context to a committed state, so that every fetch and every fault it fires reads
    /// that state whatever other contexts and processes save meanwhile (Core Data's query
    /// generations): ``QueryGenerationToken/current`` pins the latest state, another context's
    /// token pins its state, ``QueryGenerationToken/unpinned`` or `nil` unpins.
    ///
    /// A pinned context moves to the latest state when it saves, is reset, merges changes
    /// (``mergeChanges(from:)``, automatic merging) or refreshes all objects, and when you set
    /// ``QueryGenerationToken/current`` again. Objects it already holds keep their values until
    /// refreshed, as in Core Data. On SQLite a pinned generation holds a read transaction on a
    /// connection of its own, which keeps WAL checkpoints from passing it: see docs/observation.md
    /// for the limits.
    ///
    /// For example:
    ///
    /// ```swift
    /// try context.setQueryGenerationFrom(.current)
    /// let report = try context.fetch(orders)   // consistent with…
    /// let total = try context.count(for: lines) // …this, whatever is saved in between
    /// ```
    ///
    /// - Throws: ``StoreError``: `queryGenerationUnavailable` when a store cannot pin
    ///   a generation (or holds as many as it allows); `unsupportedRequest` for a child
    ///   context (it reads through its parent: pin the parent). Nothing changes on failure.
    public func setQueryGenerationFrom(_ token: QueryGenerationToken?) throws {
        checkQueue(accessing: nil)
        let token = token ?? .unpinned
        if case .unpinned = token.kind {
            generationReader = nil
            return
        }
        guard parent == nil, let coordinator = persistentStoreCoordinator else {
            throw StoreError(.unsupportedRequest, "\(self) reads through its parent context; pin the parent's query generation instead")
        }
        if case .pinned = token.kind, let generation = token.generation {
            guard Set(generation.views.keys) == Set(coordinator.persistentStores.map(\.identifier)) else {
                throw StoreError(.queryGenerationUnavailable, "the token belongs to a generation of other stores")
            }
            generationReader = GenerationReader(coordinator: coordinator, generation: generation)
            return
        }
        generationReader = GenerationReader(coordinator: coordinator, generation: try QueryGeneration(pinning: coordinator))
    }

    /// Moves a pinned context to the latest committed state (after its save, a reset, a merge).
    /// When the stores cannot pin a new generation, the context is left unpinned.
    func advanceQueryGeneration() {
        guard let reader = generationReader else { return }
        generationReader = (try? QueryGeneration(pinning: reader.coordinator)).map { GenerationReader(coordinator: reader.coordinator, generation: $0) }
    }
}

/// What a pinned root context reads from: each store's view of the pinned generation (saves
/// still go to the coordinator).
final class GenerationReader: ObjectStoreParent {
    let coordinator: PersistentStoreCoordinator
    let generation: QueryGeneration

    init(coordinator: PersistentStoreCoordinator, generation: QueryGeneration) {
        self.coordinator = coordinator
        self.generation = generation
    }

    /// A pinned generation's rows never change.
    var readAheadMark: Int? { 0 }

    private func view(for objectID: ManagedObjectID) throws -> any StoreReading {
        guard let identifier = objectID.storeIdentifier, let view = generation.views[identifier] else {
            throw StoreError(.wrongStore, objectID: objectID, "the object's store is not part of the pinned query generation")
        }
        return view
    }

    func fetchForChild(_ request: StoreFetchRequest) throws -> StoreFetchResult {
        let model = coordinator.managedObjectModel
        _ = try model.entity(named: request.entityName)
        let views = coordinator.stores(holding: request.entityName).compactMap { generation.views[$0.identifier] }
        guard !views.isEmpty else { throw StoreError(.noStores, "no store of the pinned generation holds entity \(request.entityName)") }
        if views.count == 1 { return try views[0].execute(request) }
        return try MultiStoreFetch(request: request, stores: views, model: model).run()
    }

    func snapshotForChild(_ objectID: ManagedObjectID) throws -> StoreSnapshot? {
        guard !objectID.isTemporaryID else { return nil }
        return try view(for: objectID).snapshot(for: objectID)
    }

    func snapshotsForChild(_ objectIDs: [ManagedObjectID]) throws -> [StoreSnapshot] {
        try PersistentStoreCoordinator.snapshots(for: objectIDs) { try view(for: $0) }
    }

    func relationshipForChild(_ name: String, of objectID: ManagedObjectID) throws -> [ManagedObjectID] {
        guard !objectID.isTemporaryID else { return [] }
        return try view(for: objectID).objectIDs(forRelationship: name, of: objectID)
    }

    /// Conflict checks compare with what is stored now, not with the pinned state.
    func committedSnapshotForChild(_ objectID: ManagedObjectID) throws -> StoreSnapshot? {
        try coordinator.committedSnapshotForChild(objectID)
    }
}
