import GRDB
import Stowage

/// Every workload, by its published name. Data and populated stores are built on first use
/// (untimed) and shared by the rounds of a workload.
enum Catalog {
    static let objectCount = 100_000
    static let containerCount = 1_000

    static func all() throws -> [Workload] {
        let fixtures = Fixtures()
        return [
            Workload(
                name: "memory.insert-save-100k", baselineName: "grdb-memory",
                ours: { try MemoryStoreWorkloads.insertSave(fixtures.data, model: fixtures.model()) },
                baseline: { try GRDBBaselines.insertSave(fixtures.data) }),
            Workload(
                name: "memory.fetch-predicate-sort-100k", baselineName: "grdb-memory",
                ours: { try MemoryStoreWorkloads.fetchPredicateSort(
                    from: fixtures.populatedContainer(), expecting: fixtures.data.matchingCount) },
                baseline: { try GRDBBaselines.fetchPredicateSort(
                    from: fixtures.populatedDatabase(), expecting: fixtures.data.matchingCount) }),
            Workload(
                name: "memory.create-1000-containers", baselineName: "grdb-memory",
                ours: { try MemoryStoreWorkloads.createContainers(containerCount, model: fixtures.model()) },
                baseline: { try GRDBBaselines.createQueues(containerCount) }),
        ]
    }
}

/// Lazily built inputs shared across rounds.
final class Fixtures {
    lazy var data = QuakeData(count: Catalog.objectCount)
    private var cachedModel: ManagedObjectModel?
    private var cachedContainer: PersistentContainer?
    private var cachedDatabase: DatabaseQueue?

    /// Built once per process, as an application would.
    func model() throws -> ManagedObjectModel {
        if let cachedModel { return cachedModel }
        let model = try MemoryStoreWorkloads.makeModel()
        cachedModel = model
        return model
    }

    /// A container whose in-memory store holds every quake, saved.
    func populatedContainer() throws -> PersistentContainer {
        if let cachedContainer { return cachedContainer }
        let container = try MemoryStoreWorkloads.makeContainer(model: model())
        try MemoryStoreWorkloads.insertAndSave(data, in: MemoryStoreWorkloads.makeContext(container))
        cachedContainer = container
        return container
    }

    /// An in-memory database holding every quake.
    func populatedDatabase() throws -> DatabaseQueue {
        if let cachedDatabase { return cachedDatabase }
        let queue = try GRDBBaselines.makeDatabase()
        try GRDBBaselines.insert(data, into: queue)
        cachedDatabase = queue
        return queue
    }
}
