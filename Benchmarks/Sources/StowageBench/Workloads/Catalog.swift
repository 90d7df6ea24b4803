import Foundation
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
        ] + sqlite(fixtures) + xml(fixtures) + binary(fixtures) + BatchWorkloads.workloads() + MigrationWorkloads.workloads() + MappingMigrationWorkloads.workloads()
            + PostgresWorkloads.workloads(fixtures) + ObservationWorkloads.workloads(fixtures) + ConstraintWorkloads.workloads()
            + SyncWorkloads.workloads()
    }

    /// The XML store's own write and load next to libxml2's streaming reader walking the same
    /// file (100,000 tremors, about 60 MB).
    static func xml(_ fixtures: Fixtures) -> [Workload] {
        [
            Workload(
                name: "xml.save-100k", baselineName: "libxml2-reader",
                ours: {
                    let fixture = try fixtures.xmlFixture()
                    return try XMLStoreWorkloads.save(fixtures.tremorFile(), model: fixtures.tremorModel(indexed: false), expectedBytes: fixture.bytes)
                },
                baseline: {
                    let fixture = try fixtures.xmlFixture()
                    return try XMLStoreWorkloads.libxml2Walk(fixture.url, expectedElements: fixture.elements)
                }),
            Workload(
                name: "xml.load-100k", baselineName: "libxml2-reader",
                ours: { try XMLStoreWorkloads.load(fixtures.xmlFixture().url, model: fixtures.tremorModel(indexed: false), expected: Catalog.objectCount) },
                baseline: {
                    let fixture = try fixtures.xmlFixture()
                    return try XMLStoreWorkloads.libxml2Walk(fixture.url, expectedElements: fixture.elements)
                }),
        ]
    }

    /// The binary store's format next to Foundation's `PropertyListSerialization` and
    /// `PropertyListEncoder`/`Decoder` on the same 100,000 quakes.
    static func binary(_ fixtures: Fixtures) -> [Workload] {
        typealias Side = Workload.Side
        typealias Binary = BinaryStoreWorkloads
        return [
            Workload(
                name: "binary.save-100k",
                ours: { try Binary.save(fixtures.binaryData()) },
                baselines: [
                    Side(name: "foundation-plist") { try Binary.saveFoundationPlist(fixtures.binaryData()) },
                    Side(name: "foundation-encoder") { try Binary.saveFoundationEncoder(fixtures.binaryData()) },
                ]),
            Workload(
                name: "binary.load-100k",
                ours: { try Binary.load(fixtures.binaryData()) },
                baselines: [
                    Side(name: "foundation-plist") { try Binary.loadFoundationPlist(fixtures.binaryData()) },
                    Side(name: "foundation-encoder") { try Binary.loadFoundationEncoder(fixtures.binaryData()) },
                ]),
            Workload(
                name: "binary.open-store-100k", baselineName: "foundation-plist",
                ours: { try Binary.openStore(fixtures.binaryData()) },
                baseline: { try Binary.loadFoundationPlist(fixtures.binaryData()) }),
        ]
    }

    /// The SQLite store next to the raw SQLite C API (the physical limit) and GRDB (the best
    /// Swift peer), each on a file in the scratch directory.
    static func sqlite(_ fixtures: Fixtures) -> [Workload] {
        typealias Side = Workload.Side
        return [
            Workload(
                name: "sqlite.insert-save-100k",
                ours: { try SQLiteStoreWorkloads.insertSave(
                    fixtures.tremors, model: fixtures.tremorModel(indexed: false), expected: fixtures.tremorChecksum) },
                baselines: [
                    Side(name: "raw-sqlite") { try RawSQLiteBaselines.insertSave(fixtures.tremors, expected: fixtures.tremorChecksum) },
                    Side(name: "grdb") { try GRDBSQLiteBaselines.insertSave(fixtures.tremors, expected: fixtures.tremorChecksum) },
                ]),
            Workload(
                name: "sqlite.fetch-100k",
                ours: { try SQLiteStoreWorkloads.fetchAll(
                    from: fixtures.tremorStore(indexed: false), model: fixtures.tremorModel(indexed: false), expected: fixtures.tremorChecksum) },
                baselines: [
                    Side(name: "raw-sqlite") { try RawSQLiteBaselines.fetchAll(from: fixtures.tremorDatabase(), expected: fixtures.tremorChecksum) },
                    Side(name: "grdb") { try GRDBSQLiteBaselines.fetchAll(from: fixtures.tremorDatabase(), expected: fixtures.tremorChecksum) },
                ]),
            Workload(
                name: "sqlite.indexed-query-1000x",
                ours: { try SQLiteStoreWorkloads.indexedQuery(
                    from: fixtures.tremorStore(indexed: true), model: fixtures.tremorModel(indexed: true), expected: fixtures.queryExpectation) },
                baselines: [
                    Side(name: "raw-sqlite") { try RawSQLiteBaselines.indexedQuery(from: fixtures.tremorDatabase(), expected: fixtures.queryExpectation) },
                    Side(name: "grdb") { try GRDBSQLiteBaselines.indexedQuery(from: fixtures.tremorDatabase(), expected: fixtures.queryExpectation) },
                ]),
            Workload(
                name: "sqlite.batched-iterate-1m", baselineName: "raw-sqlite",
                ours: {
                    let (url, sum) = try fixtures.millionTremorStore()
                    return try SQLiteStoreWorkloads.batchedIterate(from: url, model: fixtures.tremorModel(indexed: false), expected: sum)
                },
                baseline: {
                    let (path, sum) = try fixtures.millionTremorDatabase()
                    return try RawSQLiteBaselines.iterate(from: path, expected: sum)
                }),
            Workload(
                name: "sqlite.rtree-bbox-100k", baselineName: "no-index",
                ours: { try SQLiteStoreWorkloads.boundingBox(
                    from: fixtures.tremorStore(indexed: true), model: fixtures.tremorModel(indexed: true),
                    throughIndex: true, expected: fixtures.boxCount) },
                baseline: { try SQLiteStoreWorkloads.boundingBox(
                    from: fixtures.tremorStore(indexed: false), model: fixtures.tremorModel(indexed: false),
                    throughIndex: false, expected: fixtures.boxCount) }),
            Workload(
                name: "sqlite.update-save-100k", baselineName: "raw-sqlite",
                ours: { try SQLiteStoreWorkloads.updateSave(
                    from: fixtures.tremorStore(indexed: false), model: fixtures.tremorModel(indexed: false), count: objectCount) },
                baseline: { try RawSQLiteBaselines.updateSave(store: fixtures.tremorStore(indexed: false), count: objectCount) }),
            Workload(
                name: "sqlite.delete-save-100k", baselineName: "raw-sqlite",
                ours: { try SQLiteStoreWorkloads.deleteSave(
                    from: fixtures.tremorStore(indexed: false), model: fixtures.tremorModel(indexed: false), count: objectCount) },
                baseline: { try RawSQLiteBaselines.deleteSave(store: fixtures.tremorStore(indexed: false), count: objectCount) }),
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

    // MARK: XML workloads

    private var cachedTremorFile: AtomicStoreFile?
    private var cachedXMLFixture: XMLFixture?

    /// The 100,000 tremors as the atomic engine hands them to a format.
    func tremorFile() throws -> AtomicStoreFile {
        if let cachedTremorFile { return cachedTremorFile }
        let file = try XMLStoreWorkloads.makeFile(tremors, model: try tremorModel(indexed: false))
        cachedTremorFile = file
        return file
    }

    /// An XML store file holding the 100,000 tremors.
    func xmlFixture() throws -> XMLFixture {
        if let cachedXMLFixture { return cachedXMLFixture }
        let fixture = try XMLFixture(file: tremorFile(), model: tremorModel(indexed: false))
        cachedXMLFixture = fixture
        return fixture
    }

    // MARK: Binary store workloads

    private var cachedBinaryData: BinaryStoreWorkloads.Data100k?

    /// The 100,000 quakes as an atomic-store file, property-list dictionaries and Codable
    /// records, each side's encoded file, and our file on disk.
    func binaryData() throws -> BinaryStoreWorkloads.Data100k {
        if let cachedBinaryData { return cachedBinaryData }
        let data = try BinaryStoreWorkloads.Data100k(self.data, model: model())
        cachedBinaryData = data
        return data
    }

    // MARK: SQLite workloads

    lazy var tremors = TremorData.rows(Catalog.objectCount)
    lazy var tremorChecksum = TremorChecksum(tremors)
    lazy var queryExpectation = QueryExpectation(tremors)
    lazy var boxCount = tremors.count(where: SQLiteStoreWorkloads.inBox)
    private var tremorModels: [Bool: ManagedObjectModel] = [:]
    private var tremorStores: [Bool: URL] = [:]
    private var cachedTremorDatabase: String?
    private var cachedMillionTremorStore: (URL, MagnitudeSum)?
    private var cachedMillionTremorDatabase: (String, MagnitudeSum)?

    /// The Tremor model, with or without the time index and the R-tree.
    func tremorModel(indexed: Bool) throws -> ManagedObjectModel {
        if let model = tremorModels[indexed] { return model }
        let model = try SQLiteStoreWorkloads.makeModel(indexed: indexed)
        tremorModels[indexed] = model
        return model
    }

    /// A SQLite store file created by the store for `tremorModel(indexed:)`, holding the
    /// 100,000 tremors.
    func tremorStore(indexed: Bool) throws -> URL {
        if let url = tremorStores[indexed] { return url }
        let url = try makeStore(indexed: indexed, count: Catalog.objectCount).url
        tremorStores[indexed] = url
        return url
    }

    /// The same million rows in a store file and the sum of their magnitudes.
    func millionTremorStore() throws -> (URL, MagnitudeSum) {
        if let cachedMillionTremorStore { return cachedMillionTremorStore }
        let store = try makeStore(indexed: false, count: SQLiteStoreWorkloads.millionCount)
        cachedMillionTremorStore = store
        return store
    }

    private func makeStore(indexed: Bool, count: Int) throws -> (url: URL, sum: MagnitudeSum) {
        let url = try Scratch.makeDirectory(indexed ? "store-indexed" : "store").appendingPathComponent("Tremors.sqlite")
        // The store creates its schema (tables, indexes, R-tree and its triggers) on first load.
        _ = try SQLiteStoreWorkloads.makeContainer(model: tremorModel(indexed: indexed), url: url)
        return (url, try RawSQLiteBaselines.fillStore(path: url.path, count: count))
    }

    /// A raw SQLite file (the baselines' table, with the time index) holding the 100,000 tremors.
    func tremorDatabase() throws -> String {
        if let cachedTremorDatabase { return cachedTremorDatabase }
        let path = try Scratch.makeDirectory("raw").appendingPathComponent("tremors.sqlite").path
        try RawSQLiteBaselines.makeDatabase(path: path, rows: tremors, timeIndex: true)
        cachedTremorDatabase = path
        return path
    }

    /// A raw SQLite file holding a million rows (streamed, never all in memory) and their sum.
    func millionTremorDatabase() throws -> (String, MagnitudeSum) {
        if let cachedMillionTremorDatabase { return cachedMillionTremorDatabase }
        let path = try Scratch.makeDirectory("raw-million").appendingPathComponent("tremors.sqlite").path
        let sum = try RawSQLiteBaselines.makeDatabase(
            path: path, rows: (0..<SQLiteStoreWorkloads.millionCount).lazy.map(TremorData.row), timeIndex: false)
        cachedMillionTremorDatabase = (path, sum)
        return (path, sum)
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
