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
            Workload(
                name: "query.parse-5-clause-10k", baselineName: "sqlite-prepare",
                ours: { try QueryWorkloads.parse() },
                baseline: { try GRDBBaselines.prepare(QueryWorkloads.fiveSQL, count: QueryWorkloads.parseCount) }),
            Workload(
                name: "query.evaluate-3-clause-1m", baselineName: "swift-loop",
                ours: { try QueryWorkloads.evaluate(fixtures.millionStore(), expecting: fixtures.millionMatching) },
                baseline: { try QueryWorkloads.evaluateBaseline(fixtures.million, expecting: fixtures.millionMatching) }),
            Workload(
                name: "query.group-by-1m", baselineName: "swift-loop",
                ours: { try QueryWorkloads.groupBy(fixtures.millionStore(), expectingGroups: fixtures.millionGroups) },
                baseline: { try QueryWorkloads.groupByBaseline(fixtures.million, expectingGroups: fixtures.millionGroups) }),
        ]
    }
}

/// Lazily built inputs shared across rounds.
final class Fixtures {
    lazy var data = QuakeData(count: Catalog.objectCount)
    lazy var million = QuakeData(count: QueryWorkloads.snapshotCount)
    lazy var millionMatching = million.quakes.count { $0.magnitude > 5 && $0.place.contains("Japan") && $0.time > QueryWorkloads.since }
    lazy var millionGroups = Set(million.quakes.map(\.place)).count
    private var cachedMillionStore: (any PersistentStore)?

    /// An in-memory store holding the million quakes (built once, untimed).
    func millionStore() throws -> any PersistentStore {
        if let cachedMillionStore { return cachedMillionStore }
        let store = try QueryWorkloads.makeStore(million)
        cachedMillionStore = store
        return store
    }
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
