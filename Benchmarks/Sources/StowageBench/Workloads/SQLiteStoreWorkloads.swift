import Foundation
import SQLiteBackend
import Stowage

/// The entity of the SQLite workloads: ten attributes, as ``TremorRow``.
final class Tremor: ManagedObject {
    @Attribute var magnitude: Double
    @Attribute var depth: Double
    @Attribute var latitude: Double
    @Attribute var longitude: Double
    @Attribute var time: Date
    @Attribute var place: String
    @Attribute var code: String
    @Attribute var status: String
    @Attribute var significance: Int64
    @Attribute var tsunami: Bool
}

/// The Stowage side of the SQLite workloads: a `SQLiteStore` file in the scratch directory,
/// reached through a container and a private-queue context, as an application would.
enum SQLiteStoreWorkloads {
    /// `indexed`: a binary index on `time` and an R-tree on (`latitude`, `longitude`).
    static func makeModel(indexed: Bool) throws -> ManagedObjectModel {
        let indexes = indexed ? [
            FetchIndexDescription(name: "byTime", elements: [.init("time", ascending: false)]),
            FetchIndexDescription(name: "byLocation", elements: [.init("latitude"), .init("longitude")], kind: .rTree),
        ] : []
        return try ManagedObjectModel {
            EntityDescription("Tremor", class: Tremor.self, indexes: indexes) {
                .attribute("magnitude", .double, optional: false, defaultValue: .double(0))
                .attribute("depth", .double, optional: false, defaultValue: .double(0))
                .attribute("latitude", .double, optional: false, defaultValue: .double(0))
                .attribute("longitude", .double, optional: false, defaultValue: .double(0))
                .attribute("time", .date, optional: false, defaultValue: .date(Date(timeIntervalSince1970: 0)))
                .attribute("place", .string, optional: false, defaultValue: .string(""))
                .attribute("code", .string, optional: false, defaultValue: .string(""))
                .attribute("status", .string, optional: false, defaultValue: .string(""))
                .attribute("significance", .integer64, optional: false, defaultValue: .integer(0))
                .attribute("tsunami", .boolean, optional: false, defaultValue: .boolean(false))
            }
        }
    }

    /// A loaded container whose one store is the SQLite file at `url` (created if missing), in
    /// WAL mode (the store's default) with `synchronous = NORMAL`, as the baselines run.
    static func makeContainer(model: ManagedObjectModel, url: URL) throws -> PersistentContainer {
        let container = PersistentContainer(name: "Tremors", managedObjectModel: model)
        var description = PersistentStoreDescription(url: url)
        description.setSQLitePragma("synchronous", "NORMAL")
        container.persistentStoreDescriptions = [description]
        try container.loadPersistentStores()
        return container
    }

    static func makeContext(_ container: PersistentContainer) -> ManagedObjectContext {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = container.persistentStoreCoordinator
        return context
    }

    /// What an object reads as, every attribute touched.
    @inline(__always)
    static func add(_ tremor: Tremor, to checksum: inout TremorChecksum) {
        checksum.add(
            magnitude: tremor.magnitude, depth: tremor.depth, latitude: tremor.latitude, longitude: tremor.longitude,
            time: tremor.time.timeIntervalSince1970, place: tremor.place, code: tremor.code, status: tremor.status,
            significance: tremor.significance, tsunami: tremor.tsunami)
    }

    // MARK: (a) insert + save

    /// Inserts one object per row in `context` and saves once.
    static func insertAndSave(_ rows: [TremorRow], in context: ManagedObjectContext) throws {
        try context.performAndWait {
            for row in rows {
                let tremor = try Tremor(context: context)
                tremor.magnitude = row.magnitude
                tremor.depth = row.depth
                tremor.latitude = row.latitude
                tremor.longitude = row.longitude
                tremor.time = Date(timeIntervalSince1970: row.time)
                tremor.place = row.place
                tremor.code = row.code
                tremor.status = row.status
                tremor.significance = row.significance
                tremor.tsunami = row.tsunami
            }
            try context.save()
        }
    }

    /// Timed: insert + one save of every row into a new, empty store file (container, store
    /// and context created untimed; the context is released after the clock stops). The file
    /// is then read back with SQLite and checked.
    static func insertSave(_ rows: [TremorRow], model: ManagedObjectModel, expected: TremorChecksum) throws -> Duration {
        let directory = try Scratch.makeDirectory("insert-stowage")
        defer { Scratch.remove(directory) }
        let url = directory.appendingPathComponent("Tremors.sqlite")
        let elapsed = try {
            let context = makeContext(try makeContainer(model: model, url: url))
            return try measure { try insertAndSave(rows, in: context) }
        }()
        try RawSQLiteBaselines.checksum(path: url.path, layout: .coreData).check(against: expected, "stowage insert-save")
        return elapsed
    }

    // MARK: (b) fetch everything

    /// Timed: in a new container and context, fetch every object fully materialized
    /// (`returnsObjectsAsFaults = false`) and read all ten attributes of each.
    static func fetchAll(from url: URL, model: ManagedObjectModel, expected: TremorChecksum) throws -> Duration {
        let context = makeContext(try makeContainer(model: model, url: url))
        var request = FetchRequest<Tremor>()
        request.returnsObjectsAsFaults = false
        var checksum = TremorChecksum()
        let elapsed = try measure {
            try context.performAndWait {
                for tremor in try context.fetch(request) { add(tremor, to: &checksum) }
            }
        }
        try checksum.check(against: expected, "stowage fetch")
        return elapsed
    }

    // MARK: (c) indexed query, 1,000 times

    static let queryFormat = "magnitude > %@ AND time > %@"

    /// Timed: `queryCount` times, in one context, fetch `magnitude > m AND time > t` sorted by
    /// time descending, limit 100, objects fully materialized; read magnitude and time of each.
    static func indexedQuery(from url: URL, model: ManagedObjectModel, expected: QueryExpectation) throws -> Duration {
        let context = makeContext(try makeContainer(model: model, url: url))
        var request = FetchRequest<Tremor>()
        request.predicate = try StorePredicate(format: queryFormat, QueryExpectation.magnitude, Date(timeIntervalSince1970: QueryExpectation.time))
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
        try expected.check(found, "stowage indexed query")
        return elapsed
    }

    // MARK: (d) iterate a million objects in batches

    static let batchSize = 200
    static let millionCount = 1_000_000

    /// Timed: in a new container and context, fetch every object as a batched result
    /// (`fetchBatched`, `fetchBatchSize = 200`: one query per batch of 200, earlier batches
    /// released) and read `magnitude` of each, in order.
    static func batchedIterate(from url: URL, model: ManagedObjectModel, expected: MagnitudeSum) throws -> Duration {
        let context = makeContext(try makeContainer(model: model, url: url))
        var request = FetchRequest<Tremor>()
        request.fetchBatchSize = batchSize
        var found = MagnitudeSum()
        let elapsed = try measure {
            try context.performAndWait {
                for tremor in try context.fetchBatched(request) { found.add(tremor.magnitude) }
            }
        }
        try expected.check(found, "stowage batched iteration")
        return elapsed
    }

    // MARK: (e) bounding box, with and without the R-tree

    static let boxWithIndex = "indexed:by:(latitude, \"byLocation\") BETWEEN {18, 54} AND indexed:by:(longitude, \"byLocation\") BETWEEN {73, 135}"
    static let boxWithoutIndex = "latitude BETWEEN {18, 54} AND longitude BETWEEN {73, 135}"
    static let boxRepetitions = 10

    /// Whether a row lies in the box (both bounds inclusive, as BETWEEN).
    static func inBox(_ row: TremorRow) -> Bool {
        (18...54).contains(row.latitude) && (73...135).contains(row.longitude)
    }

    /// Timed: `boxRepetitions` times, in one context, fetch the IDs of the objects in the box —
    /// through the R-tree (`indexed:by:`, on the model with the index) or by scanning the table
    /// (plain comparisons, on the model without it).
    static func boundingBox(from url: URL, model: ManagedObjectModel, throughIndex: Bool, expected: Int) throws -> Duration {
        let context = makeContext(try makeContainer(model: model, url: url))
        var request = FetchRequest<ManagedObjectID>(entityName: "Tremor")
        request.predicate = try StorePredicate(format: throughIndex ? boxWithIndex : boxWithoutIndex)
        var found = 0
        let elapsed = try measure {
            try context.performAndWait {
                for _ in 0..<boxRepetitions { found += try context.fetch(request).count }
            }
        }
        guard found == expected * boxRepetitions else {
            throw BenchmarkError.wrongResultCount(found: found, expected: expected * boxRepetitions)
        }
        return elapsed
    }

    // MARK: (f) fetch, change every object, save

    /// The change the update workloads make to every row (on both sides).
    @inline(__always)
    static func updated(magnitude: Double) -> Double { magnitude + 1 }

    /// Timed: on a fresh copy of the 100,000-row store (copied, container and context created
    /// untimed), fetch every object materialized (`returnsObjectsAsFaults = false`), set
    /// `magnitude = magnitude + 1` on each, one `save()`. The context is released after the
    /// clock stops; the file is then read back with SQLite and checked.
    static func updateSave(from store: URL, model: ManagedObjectModel, count: Int) throws -> Duration {
        var request = FetchRequest<Tremor>()
        request.returnsObjectsAsFaults = false
        return try saveOnCopy(of: store, "update-stowage", model: model, count: count, request: request) { tremors, _ in
            for tremor in tremors { tremor.magnitude = updated(magnitude: tremor.magnitude) }
        } check: { path in
            try RawSQLiteBaselines.checkUpdated(path: path, count: count, "stowage update-save")
        }
    }

    // MARK: (g) fetch, delete every object, save

    /// Timed: on a fresh copy of the 100,000-row store (copied, container and context created
    /// untimed), fetch every object (as faults, the default), `delete` each, one `save()`. The
    /// context is released after the clock stops; the table must then be empty.
    static func deleteSave(from store: URL, model: ManagedObjectModel, count: Int) throws -> Duration {
        try saveOnCopy(of: store, "delete-stowage", model: model, count: count, request: FetchRequest<Tremor>()) { tremors, context in
            for tremor in tremors { context.delete(tremor) }
        } check: { path in
            try RawSQLiteBaselines.checkEmpty(path: path, "stowage delete-save")
        }
    }

    /// Times fetching `request` on a fresh copy of `store`, `change` and one `save()`; checks the
    /// row count and then the file (`check`, untimed).
    private static func saveOnCopy(
        of store: URL, _ name: String, model: ManagedObjectModel, count: Int, request: FetchRequest<Tremor>,
        change: ([Tremor], ManagedObjectContext) -> Void, check: (String) throws -> Void
    ) throws -> Duration {
        let copy = try Scratch.copyDatabase(store, name)
        defer { Scratch.remove(copy.directory) }
        var fetched = 0
        let elapsed = try {
            let context = makeContext(try makeContainer(model: model, url: copy.url))
            return try measure {
                try context.performAndWait {
                    let tremors = try context.fetch(request)
                    fetched = tremors.count
                    change(tremors, context)
                    try context.save()
                }
            }
        }()
        guard fetched == count else { throw BenchmarkError.wrongResultCount(found: fetched, expected: count) }
        try check(copy.url.path)
        return elapsed
    }
}

/// What the indexed-query workload must find: each of the `repetitions` queries returns the
/// same `limit` rows, whose magnitudes and times add up to the sums computed in Swift.
struct QueryExpectation {
    static let magnitude = 5.0
    /// Half-way through the data's time span (between two 0.1 s steps, so no row equals it).
    static let time = TremorData.firstTime + 50_000_000.05
    static let limit = 100
    static let repetitions = 1_000
    static let sql = """
        SELECT id, magnitude, depth, latitude, longitude, time, place, code, status, significance, tsunami FROM tremor
        WHERE magnitude > ? AND time > ? ORDER BY time DESC LIMIT ?
        """

    struct Found {
        var rows = 0
        var shortQueries = 0
        var magnitudes = 0.0
        var times = 0.0

        mutating func add(count: Int) {
            if count != QueryExpectation.limit { shortQueries += 1 }
        }

        @inline(__always)
        mutating func add(magnitude: Double, time: Double) {
            rows += 1
            magnitudes += magnitude
            times += time
        }
    }

    /// Sums over one query's result.
    let magnitudes: Double
    let times: Double

    init(_ rows: [TremorRow]) {
        let top = rows.filter { $0.magnitude > Self.magnitude && $0.time > Self.time }
            .sorted { $0.time > $1.time }
            .prefix(Self.limit)
        magnitudes = top.reduce(0) { $0 + $1.magnitude }
        times = top.reduce(0) { $0 + $1.time }
    }

    func check(_ found: Found, _ what: String) throws {
        let n = Double(Self.repetitions)
        func close(_ a: Double, _ b: Double) -> Bool { abs(a - b) <= 1e-9 * max(1, abs(a), abs(b)) }
        guard found.shortQueries == 0, found.rows == Self.limit * Self.repetitions,
            close(found.magnitudes, magnitudes * n), close(found.times, times * n)
        else {
            throw BenchmarkError.wrongResult(
                "\(what): \(found.rows) rows (\(found.shortQueries) queries short), magnitudes \(found.magnitudes), times \(found.times); expected \(Self.limit * Self.repetitions) rows, \(magnitudes * n), \(times * n)")
        }
    }
}

/// The batched-iteration check: how many rows were read and the sum of their magnitudes.
struct MagnitudeSum {
    var count = 0
    var sum = 0.0

    @inline(__always)
    mutating func add(_ magnitude: Double) {
        count += 1
        sum += magnitude
    }

    func check(_ found: MagnitudeSum, _ what: String) throws {
        guard found.count == count, abs(found.sum - sum) <= 1e-9 * max(1, abs(sum)) else {
            throw BenchmarkError.wrongResult("\(what): \(found.count) rows summing to \(found.sum), expected \(count) summing to \(sum)")
        }
    }
}
