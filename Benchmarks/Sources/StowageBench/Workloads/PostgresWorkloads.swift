import Foundation
import PostgresBackend
import PostgresNIO
import Stowage

/// The PostgreSQL store next to a raw baseline on the same client library (postgres-nio),
/// sending the same statements a program written by hand would: multi-row `INSERT`s in one
/// transaction, one `SELECT` of every row decoded into structs, the indexed query with bound
/// values — and `COPY` as a second baseline for the batch insert. Every side works in a schema of
/// its own on a local server (`PostgresServer`), over the same Unix-domain socket.
enum PostgresWorkloads {
    static func workloads(_ fixtures: Fixtures) -> [Workload] {
        typealias Side = Workload.Side
        let tables = PostgresFixtures(fixtures)
        return [
            Workload(
                name: "postgres.insert-save-100k", baselineName: "raw-postgres-nio",
                ours: { try insertSave(fixtures.tremors, model: fixtures.tremorModel(indexed: false), expected: fixtures.tremorChecksum) },
                baseline: { try RawPostgres.insertSave(fixtures.tremors, expected: fixtures.tremorChecksum) }),
            Workload(
                name: "postgres.fetch-100k", baselineName: "raw-postgres-nio",
                ours: { try fetchAll(schema: tables.store(indexed: false), model: fixtures.tremorModel(indexed: false), expected: fixtures.tremorChecksum) },
                baseline: { try RawPostgres.fetchAll(schema: tables.raw(), expected: fixtures.tremorChecksum) }),
            Workload(
                name: "postgres.indexed-query-1000x", baselineName: "raw-postgres-nio",
                ours: { try indexedQuery(schema: tables.store(indexed: true), model: fixtures.tremorModel(indexed: true), expected: fixtures.queryExpectation) },
                baseline: { try RawPostgres.indexedQuery(schema: tables.raw(), expected: fixtures.queryExpectation) }),
            Workload(
                name: "postgres.batched-iterate-1m", baselineName: "raw-postgres-nio",
                ours: { try batchedIterate(schema: tables.millionReadings(), expected: tables.millionSum) },
                baseline: { try RawPostgres.iterate(schema: tables.millionReadings(), expected: tables.millionSum) }),
            Workload(
                name: "postgres.batch-insert-1m",
                ours: { try batchInsert() },
                baselines: [
                    Side(name: "raw-postgres-nio") { try RawPostgres.batchInsert(copy: false) },
                    Side(name: "copy") { try RawPostgres.batchInsert(copy: true) },
                ]),
            Workload(
                name: "postgres.batch-delete-1m", baselineName: "raw-postgres-nio",
                ours: { try batchDelete() },
                baseline: { try RawPostgres.batchDelete() }),
        ]
    }

    static func freshSchema(_ prefix: String) -> String {
        "\(prefix)_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(10).lowercased()
    }

    static func makeContainer(model: ManagedObjectModel, schema: String) throws -> PersistentContainer {
        let container = PersistentContainer(name: "Tremors", managedObjectModel: model)
        container.persistentStoreDescriptions = [PersistentStoreDescription(url: try PostgresServer.url(schema: schema))]
        try container.loadPersistentStores()
        return container
    }

    /// Timed: insert + one save of every row into a new, empty store (created untimed), then
    /// read back raw and checked.
    static func insertSave(_ rows: [TremorRow], model: ManagedObjectModel, expected: TremorChecksum) throws -> Duration {
        let schema = freshSchema("ours_insert")
        defer { RawPostgres.drop(schema) }
        let elapsed = try {
            let context = SQLiteStoreWorkloads.makeContext(try makeContainer(model: model, schema: schema))
            return try measure { try SQLiteStoreWorkloads.insertAndSave(rows, in: context) }
        }()
        try RawPostgres.checksum(schema: schema, layout: .coreData).check(against: expected, "stowage postgres insert-save")
        return elapsed
    }

    /// Timed: in a new container and context, every object fully materialized, all ten
    /// attributes read.
    static func fetchAll(schema: String, model: ManagedObjectModel, expected: TremorChecksum) throws -> Duration {
        let context = SQLiteStoreWorkloads.makeContext(try makeContainer(model: model, schema: schema))
        var request = FetchRequest<Tremor>()
        request.returnsObjectsAsFaults = false
        var checksum = TremorChecksum()
        let elapsed = try measure {
            try context.performAndWait {
                for tremor in try context.fetch(request) { SQLiteStoreWorkloads.add(tremor, to: &checksum) }
            }
        }
        try checksum.check(against: expected, "stowage postgres fetch")
        return elapsed
    }

    /// Timed: the SQLite workload's indexed query (`magnitude > m AND time > t`, newest first,
    /// limit 100) 1,000 times in one context.
    static func indexedQuery(schema: String, model: ManagedObjectModel, expected: QueryExpectation) throws -> Duration {
        let context = SQLiteStoreWorkloads.makeContext(try makeContainer(model: model, schema: schema))
        var request = FetchRequest<Tremor>()
        request.predicate = try StorePredicate(
            format: SQLiteStoreWorkloads.queryFormat, QueryExpectation.magnitude, Date(timeIntervalSince1970: QueryExpectation.time))
        request.sortDescriptors = [.descending("time")]
        request.fetchLimit = QueryExpectation.limit
        request.returnsObjectsAsFaults = false
        var found = QueryExpectation.Found()
        let elapsed = try measure {
            try context.performAndWait {
                for _ in 0..<QueryExpectation.repetitions {
                    let tremors = try context.fetch(request)
                    found.add(count: tremors.count)
                    for tremor in tremors { found.add(magnitude: tremor.magnitude, time: tremor.time.timeIntervalSince1970) }
                }
            }
        }
        try expected.check(found, "stowage postgres indexed query")
        return elapsed
    }

    /// Timed: in a new container and context, every one of a million objects as a batched result
    /// (`fetchBatched`, 200 per batch, earlier batches released), `value` of each read in order.
    static func batchedIterate(schema: String, expected: MagnitudeSum) throws -> Duration {
        let container = PersistentContainer(name: "Readings", managedObjectModel: try BatchWorkloads.makeModel())
        container.persistentStoreDescriptions = [PersistentStoreDescription(url: try PostgresServer.url(schema: schema))]
        try container.loadPersistentStores()
        let context = container.newBackgroundContext()
        var request = FetchRequest<ManagedObject>(entityName: "Reading")
        request.fetchBatchSize = SQLiteStoreWorkloads.batchSize
        var found = MagnitudeSum()
        let elapsed = try measure {
            try context.performAndWait {
                for reading in try context.fetchBatched(request) { found.add(try reading.value(forKey: "value") as? Double ?? 0) }
            }
        }
        try expected.check(found, "stowage postgres batched iteration")
        return elapsed
    }

    /// Timed: a batch insert of a million rows, each made by its handler as it is needed.
    static func batchInsert() throws -> Duration {
        let schema = freshSchema("ours_batch")
        defer { RawPostgres.drop(schema) }
        let context = try readingsContext(schema: schema)
        let time = try measure { _ = try context.performAndWait { try context.execute(BatchWorkloads.handlerRequest()) } }
        let count = try context.performAndWait { try context.count(for: FetchRequest<ManagedObject>(entityName: "Reading")) }
        guard count == BatchWorkloads.rowCount else { throw BenchmarkError.wrongResultCount(found: count, expected: BatchWorkloads.rowCount) }
        return time
    }
}

extension PostgresWorkloads {
    /// A context on a new store of the batch workload's model in `schema`.
    static func readingsContext(schema: String) throws -> ManagedObjectContext {
        let container = PersistentContainer(name: "Readings", managedObjectModel: try BatchWorkloads.makeModel())
        container.persistentStoreDescriptions = [PersistentStoreDescription(url: try PostgresServer.url(schema: schema))]
        try container.loadPersistentStores()
        return container.newBackgroundContext()
    }

    /// Timed: a batch delete of every one of a million readings (inserted untimed, by a batch
    /// insert into a new schema), in one transaction, counted.
    static func batchDelete() throws -> Duration {
        let schema = freshSchema("ours_delete")
        defer { RawPostgres.drop(schema) }
        let context = try readingsContext(schema: schema)
        _ = try context.performAndWait { try context.execute(BatchWorkloads.handlerRequest()) }
        try RawPostgres.analyze(schema)
        var request = BatchDeleteRequest(fetchRequest: FetchRequest<ManagedObject>(entityName: "Reading"))
        request.resultType = .count
        var deleted = 0
        let time = try measure { deleted = try context.performAndWait { try context.execute(request).count ?? 0 } }
        guard deleted == BatchWorkloads.rowCount else { throw BenchmarkError.wrongResultCount(found: deleted, expected: BatchWorkloads.rowCount) }
        return time
    }
}

/// The populated schemas the read workloads share, built once (untimed): the store's (by the
/// store itself) and the raw table's.
final class PostgresFixtures {
    private let fixtures: Fixtures
    private var stores: [Bool: String] = [:]
    private var rawSchema: String?

    init(_ fixtures: Fixtures) { self.fixtures = fixtures }

    func store(indexed: Bool) throws -> String {
        if let schema = stores[indexed] { return schema }
        let schema = PostgresWorkloads.freshSchema(indexed ? "ours_indexed" : "ours_plain")
        let container = try PostgresWorkloads.makeContainer(model: try fixtures.tremorModel(indexed: indexed), schema: schema)
        try SQLiteStoreWorkloads.insertAndSave(fixtures.tremors, in: SQLiteStoreWorkloads.makeContext(container))
        try RawPostgres.analyze(schema)
        stores[indexed] = schema
        return schema
    }

    private var millionSchema: String?

    /// What the million readings' values add up to.
    lazy var millionSum: MagnitudeSum = {
        var sum = MagnitudeSum()
        for i in 0..<BatchWorkloads.rowCount { sum.add(BatchWorkloads.row(i)["value"] as? Double ?? 0) }
        return sum
    }()

    /// A store of a million readings (made by a batch insert), read by both sides.
    func millionReadings() throws -> String {
        if let millionSchema { return millionSchema }
        let schema = PostgresWorkloads.freshSchema("ours_million")
        let container = PersistentContainer(name: "Readings", managedObjectModel: try BatchWorkloads.makeModel())
        container.persistentStoreDescriptions = [PersistentStoreDescription(url: try PostgresServer.url(schema: schema))]
        try container.loadPersistentStores()
        let context = container.newBackgroundContext()
        _ = try context.performAndWait { try context.execute(BatchWorkloads.handlerRequest()) }
        try RawPostgres.analyze(schema)
        millionSchema = schema
        return schema
    }

    func raw() throws -> String {
        if let rawSchema { return rawSchema }
        let schema = PostgresWorkloads.freshSchema("raw_read")
        try RawPostgres.create(schema: schema, indexed: true)
        let connection = try RawPostgres.connect()
        defer { connection.closeNow() }
        try RawPostgres.insert(fixtures.tremors, schema: schema, on: connection)
        try RawPostgres.analyze(schema)
        rawSchema = schema
        return schema
    }
}
