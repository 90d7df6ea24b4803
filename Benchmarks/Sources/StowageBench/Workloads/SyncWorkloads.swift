import Foundation
import Stowage

/// The sync engine moving 100,000 new objects between two SQLite stores with history (a local
/// store and a server store): a push (`sync.push-100k-changes`: the local store inserted them in
/// one save since the last sync) and a pull (`sync.pull-100k-changes`: another client pushed them).
/// The baseline copies the same rows raw: a dictionary fetch of the source store and one batch
/// insert into the other store (history on) — what moving the data costs without identities,
/// tokens or conflict handling.
enum SyncWorkloads {
    static let objectCount = 100_000

    static func workloads() -> [Workload] {
        [
            Workload(name: "sync.push-100k-changes", baselineName: "raw-batch-insert", ours: { try push() }, baseline: { try rawCopy() }),
            Workload(name: "sync.pull-100k-changes", baselineName: "raw-batch-insert", ours: { try pull() }, baseline: { try rawCopy() }),
        ]
    }

    static func makeModel() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Item") {
                .attribute("name", .string)
                .attribute("value", .double, optional: false, defaultValue: .double(0))
                .attribute("count", .integer64, optional: false, defaultValue: .integer(0))
            }
            SyncEngine.modelEntities()
        }
    }

    private static func container(_ url: URL, _ model: ManagedObjectModel) throws -> PersistentContainer {
        let container = PersistentContainer(name: "Items", managedObjectModel: model)
        var description = PersistentStoreDescription(url: url)
        description.setSQLitePragma("synchronous", "NORMAL")
        description.isHistoryTrackingEnabled = true
        container.persistentStoreDescriptions = [description]
        try container.loadPersistentStores()
        return container
    }

    private static func rows() -> [[String: Any]] {
        (0..<objectCount).map { ["name": "item \($0)", "value": Double($0) / 10, "count": $0] }
    }

    private static func insertRows(into container: PersistentContainer) throws {
        let context = container.newBackgroundContext()
        _ = try context.performAndWait { try context.execute(BatchInsertRequest(entityName: "Item", objects: rows())) }
    }

    private static func count(_ container: PersistentContainer) throws -> Int {
        let context = container.newBackgroundContext()
        return try context.performAndWait { try context.count(for: FetchRequest<ManagedObject>(entityName: "Item")) }
    }

    /// Runs `engine.sync()` from this synchronous code.
    private static func sync(_ engine: SyncEngine) throws -> SyncSummary {
        let result = LockedResult()
        let done = DispatchSemaphore(value: 0)
        Task {
            do { result.set(.success(try await engine.sync())) } catch { result.set(.failure(error)) }
            done.signal()
        }
        done.wait()
        return try result.get()
    }

    private static func expect(_ actual: Int, _ what: String) throws {
        guard actual == objectCount else { throw BenchmarkError.wrongResultCount(found: actual, expected: objectCount) }
    }

    static func push() throws -> Duration {
        let directory = try Scratch.makeDirectory("sync-push")
        defer { Scratch.remove(directory) }
        let model = try makeModel()
        let local = try container(directory.appendingPathComponent("L.sqlite"), model)
        let server = try container(directory.appendingPathComponent("S.sqlite"), model)
        let engine = try SyncEngine(local: local, server: server)
        _ = try sync(engine)                                  // the client is set up
        try insertRows(into: local)
        var summary = SyncSummary()
        let time = try measure { summary = try sync(engine) }
        try expect(summary.pushed.inserted, "pushed")
        try expect(try count(server), "on the server")
        return time
    }

    static func pull() throws -> Duration {
        let directory = try Scratch.makeDirectory("sync-pull")
        defer { Scratch.remove(directory) }
        let model = try makeModel()
        let other = try container(directory.appendingPathComponent("O.sqlite"), model)
        let local = try container(directory.appendingPathComponent("L.sqlite"), model)
        let server = try container(directory.appendingPathComponent("S.sqlite"), model)
        let otherEngine = try SyncEngine(local: other, server: server)
        let engine = try SyncEngine(local: local, server: server)
        _ = try sync(engine)                                  // the client is set up
        try insertRows(into: other)
        _ = try sync(otherEngine)                             // another client pushes them
        var summary = SyncSummary()
        let time = try measure { summary = try sync(engine) }
        try expect(summary.pulled.inserted, "pulled")
        try expect(try count(local), "in the local store")
        return time
    }

    /// The same rows read from one store and batch-inserted into another.
    static func rawCopy() throws -> Duration {
        let directory = try Scratch.makeDirectory("sync-raw")
        defer { Scratch.remove(directory) }
        let model = try makeModel()
        let source = try container(directory.appendingPathComponent("A.sqlite"), model)
        let destination = try container(directory.appendingPathComponent("B.sqlite"), model)
        try insertRows(into: source)
        let reader = source.newBackgroundContext()
        let writer = destination.newBackgroundContext()
        let time = try measure {
            let rows: [[String: Any]] = try reader.performAndWait {
                var request = FetchRequest<FetchedDictionary>(entityName: "Item")
                request.propertiesToFetch = ["name", "value", "count"]
                return try reader.fetch(request).map { row in row.compactMapValues(\.anyValue) }
            }
            _ = try writer.performAndWait { try writer.execute(BatchInsertRequest(entityName: "Item", objects: rows)) }
        }
        try expect(try count(destination), "copied")
        return time
    }
}

/// The result of a task, handed to the thread waiting for it.
private final class LockedResult: @unchecked Sendable {
    // @unchecked: `value` is written once by the task and read after the semaphore says it was.
    private let lock = NSLock()
    private var value: Result<SyncSummary, any Error> = .failure(BenchmarkError.failed("the sync did not finish"))

    func set(_ result: Result<SyncSummary, any Error>) { lock.withLock { value = result } }
    func get() throws -> SyncSummary { try lock.withLock { value }.get() }
}
