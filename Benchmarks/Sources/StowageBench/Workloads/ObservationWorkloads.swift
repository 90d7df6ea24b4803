import Foundation
import Stowage
import Synchronization

/// Watching a 100,000-object SQLite store while another context saves one object at a time:
/// a fetched results controller against re-fetching the request after every save, and a live
/// query's delivery against a plain fetch after the save.
enum ObservationWorkloads {
    static let saves = 1_000
    /// Re-fetching 100,000 objects a thousand times would take minutes a round: the baseline
    /// re-fetches after this many saves and is scaled to ``saves`` (its cost per save is flat).
    static let baselineSaves = 20
    static let liveQuerySaves = 200

    static func workloads(_ fixtures: Fixtures) -> [Workload] {
        [
            Workload(
                name: "observation.controller-1000-saves-100k", baselineName: "refetch-each-save",
                ours: { try controller(store: fixtures.tremorStore(indexed: false), model: fixtures.tremorModel(indexed: false)) },
                baseline: { try refetchEachSave(store: fixtures.tremorStore(indexed: false), model: fixtures.tremorModel(indexed: false)) }),
            Workload(
                name: "observation.live-query-latency-200-saves", baselineName: "fetch-after-save",
                ours: { try liveQuery(store: fixtures.tremorStore(indexed: false), model: fixtures.tremorModel(indexed: false)) },
                baseline: { try fetchAfterSave(store: fixtures.tremorStore(indexed: false), model: fixtures.tremorModel(indexed: false)) }),
        ]
    }

    /// Two contexts on a copy of the store: the watcher and the writer.
    private static func open(_ store: URL, model: ManagedObjectModel) throws -> (watcher: ManagedObjectContext, writer: ManagedObjectContext, ids: [ManagedObjectID], cleanup: () -> Void) {
        let copy = try Scratch.copyDatabase(store, "observation")
        let container = try SQLiteStoreWorkloads.makeContainer(model: model, url: copy.url)
        let watcher = SQLiteStoreWorkloads.makeContext(container)
        let writer = SQLiteStoreWorkloads.makeContext(container)
        var idRequest = FetchRequest<ManagedObjectID>(entityName: "Tremor")
        idRequest.fetchLimit = 5_000
        let ids = try writer.performAndWait { try writer.fetch(idRequest) }
        return (watcher, writer, ids, { Scratch.remove(copy.directory) })
    }

    private static var request: FetchRequest<Tremor> {
        var request = FetchRequest<Tremor>()
        request.predicate = try? StorePredicate(format: "magnitude >= 0")
        request.sortDescriptors = [.descending("time")]
        request.returnsObjectsAsFaults = false
        return request
    }

    /// One save of the writer: a tremor's magnitude and time change (it moves in the sort).
    private static func save(_ n: Int, ids: [ManagedObjectID], in writer: ManagedObjectContext) throws -> ContextChanges {
        try writer.performAndWait {
            let id = ids[n % ids.count]
            let tremor = try writer.existingObject(with: id) as? Tremor
            tremor?.magnitude += 0.01
            tremor?.time = Date(timeIntervalSince1970: 2_000_000_000 + Double(n))
            try writer.save()
            var changes = ContextChanges(kind: .didSave)
            changes.updatedObjectIDs = [id]
            return changes
        }
    }

    /// Timed: 1,000 saves, each merged into the watcher, whose controller places the object again.
    static func controller(store: URL, model: ManagedObjectModel) throws -> Duration {
        let (watcher, writer, ids, cleanup) = try open(store, model: model)
        defer { cleanup() }
        let controller = try watcher.performAndWait {
            let controller = try FetchedResultsController(fetchRequest: request, managedObjectContext: watcher)
            try controller.performFetch()
            return controller
        }
        let elapsed = try measure {
            for n in 0..<saves {
                let changes = try save(n, ids: ids, in: writer)
                watcher.performAndWait { watcher.mergeChanges(from: changes) }
            }
        }
        try watcher.performAndWait {
            guard let first = controller.fetchedObjects?.first, first.objectID == ids[(saves - 1) % ids.count] else {
                throw StoreError(.corrupt, "the controller does not show the last saved tremor first")
            }
            guard controller.fetchedObjects?.count == Catalog.objectCount else { throw StoreError(.corrupt, "the controller lost objects") }
        }
        return elapsed
    }

    /// Timed: 100 saves, each followed by fetching the request again; scaled to 1,000 saves.
    static func refetchEachSave(store: URL, model: ManagedObjectModel) throws -> Duration {
        let (watcher, writer, ids, cleanup) = try open(store, model: model)
        defer { cleanup() }
        let request = self.request
        var latest: [Tremor] = try watcher.performAndWait { try watcher.fetch(request) }
        let elapsed = try measure {
            for n in 0..<baselineSaves {
                let changes = try save(n, ids: ids, in: writer)
                latest = try watcher.performAndWait {
                    watcher.mergeChanges(from: changes)
                    return try watcher.fetch(request)
                }
            }
        }
        guard latest.count == Catalog.objectCount else { throw StoreError(.corrupt, "the refetch lost objects") }
        return elapsed * (saves / baselineSaves)
    }

    /// The live query's request: the 20 latest tremors.
    private static var latest: FetchRequest<FetchedDictionary> {
        var request = FetchRequest<FetchedDictionary>(entityName: "Tremor")
        request.propertiesToFetch = ["time", "magnitude"]
        request.sortDescriptors = [.descending("time")]
        request.fetchLimit = 20
        return request
    }

    /// Timed: from the end of each save to the live query's fresh result, 200 times.
    static func liveQuery(store: URL, model: ManagedObjectModel) throws -> Duration {
        let (watcher, writer, ids, cleanup) = try open(store, model: model)
        defer { cleanup() }
        let arrived = DispatchSemaphore(value: 0)
        let received = Mutex(0)
        let results = watcher.changes(for: latest)
        let task = Task {
            for try await _ in results {
                received.withLock { $0 += 1 }
                arrived.signal()
            }
        }
        defer { task.cancel() }
        arrived.wait()   // the first result
        var total = Duration.zero
        for n in 0..<liveQuerySaves {
            _ = try save(n, ids: ids, in: writer)
            total += measure { arrived.wait() }
        }
        guard received.withLock({ $0 }) == liveQuerySaves + 1 else { throw StoreError(.corrupt, "the live query missed or repeated a result") }
        return total
    }

    /// Timed: the same request fetched right after each of 200 saves (what a poll costs at best).
    static func fetchAfterSave(store: URL, model: ManagedObjectModel) throws -> Duration {
        let (watcher, writer, ids, cleanup) = try open(store, model: model)
        defer { cleanup() }
        let request = latest
        var total = Duration.zero
        for n in 0..<liveQuerySaves {
            _ = try save(n, ids: ids, in: writer)
            total += try measure { _ = try watcher.performAndWait { try watcher.fetch(request) } }
        }
        return total
    }
}
