/// An atomic store's pinned generation: the graph as it was (the store's later saves build new
/// graphs; this one is shared until then, copied by nothing).
final class AtomicGenerationView: StoreReading {
    let identifier: String
    private let graph: SnapshotGraph

    init(identifier: String, graph: SnapshotGraph) {
        self.identifier = identifier
        self.graph = graph
    }

    func execute(_ request: StoreFetchRequest) throws -> StoreFetchResult { try graph.execute(request) }
    func snapshot(for objectID: ManagedObjectID) throws -> StoreSnapshot? { graph[objectID] }
    func snapshots(for objectIDs: [ManagedObjectID]) throws -> [StoreSnapshot] { objectIDs.compactMap { graph[$0] } }
    func objectIDs(forRelationship name: String, of objectID: ManagedObjectID) throws -> [ManagedObjectID] {
        graph.objectIDs(forRelationship: name, of: objectID)
    }
}

extension AtomicStore: QueryGenerationStore {
    /// The graph as it is now; it costs nothing until the store's next save copies what it changes.
    public func pinQueryGeneration() throws -> any StoreReading {
        AtomicGenerationView(identifier: identifier, graph: currentGraph)
    }
}
