import Foundation
import StoreCore
import StoreSync
import StoreTestSupport
import XCTest

/// Seeded random scripts of offline edits on four local stores (two SQLite, two XML) and syncs
/// in random order; after a final round every store, the server included, holds the same objects.
final class SyncConvergenceTests: XCTestCase {
    /// What a script does; `store` indexes the local stores.
    enum Step: CustomStringConvertible {
        case insert(store: Int, entity: String, name: String)
        case rename(store: Int, entity: String, pick: Int, name: String)
        case rank(store: Int, pick: Int, value: Int64)
        case file(store: Int, note: Int, folder: Int?)
        case tag(store: Int, note: Int, tag: Int, add: Bool)
        case delete(store: Int, entity: String, pick: Int)
        case sync(store: Int)

        var description: String {
            switch self {
            case .insert(let store, let entity, let name): "store \(store): insert \(entity) \(name)"
            case .rename(let store, let entity, let pick, let name): "store \(store): \(entity)[\(pick)] named \(name)"
            case .rank(let store, let pick, let value): "store \(store): Note[\(pick)].rank = \(value)"
            case .file(let store, let note, let folder): "store \(store): Note[\(note)].folder = \(folder.map { "Folder[\($0)]" } ?? "nil")"
            case .tag(let store, let note, let tag, let add): "store \(store): Note[\(note)] \(add ? "+" : "-") Tag[\(tag)]"
            case .delete(let store, let entity, let pick): "store \(store): delete \(entity)[\(pick)]"
            case .sync(let store): "store \(store): sync"
            }
        }
    }

    static let entities = ["Folder", "Note", "Tag", "Setting"]
    static let nameKey = ["Folder": "name", "Note": "title", "Tag": "label", "Setting": "key"]

    static func script(seed: UInt64, stores: Int, length: Int) -> [Step] {
        var random = SeededGenerator(state: seed)
        var steps: [Step] = []
        for index in 0..<length {
            let store = Int.random(in: 0..<stores, using: &random)
            let pick = Int.random(in: 0..<4, using: &random)
            let name = "v\(index)"
            switch Int.random(in: 0..<12, using: &random) {
            case 0, 1: steps.append(.insert(store: store, entity: entities.randomElement(using: &random) ?? "Note", name: name))
            case 2, 3: steps.append(.rename(store: store, entity: entities.randomElement(using: &random) ?? "Note", pick: pick, name: name))
            case 4: steps.append(.rank(store: store, pick: pick, value: Int64(index)))
            case 5: steps.append(.file(store: store, note: pick, folder: Bool.random(using: &random) ? Int.random(in: 0..<3, using: &random) : nil))
            case 6, 7: steps.append(.tag(store: store, note: pick, tag: Int.random(in: 0..<3, using: &random), add: Int.random(in: 0..<3, using: &random) > 0))
            case 8: steps.append(.delete(store: store, entity: entities.randomElement(using: &random) ?? "Note", pick: pick))
            default: steps.append(.sync(store: store))
            }
        }
        return steps
    }

    /// The objects of `entity` in a stable order (by name, then key), for picking by index.
    static func objects(_ entity: String, in context: ManagedObjectContext) throws -> [ManagedObject] {
        let key = nameKey[entity] ?? "name"
        return try context.all(entity).sorted {
            let l = try? $0.value(forKey: key) as? String, r = try? $1.value(forKey: key) as? String
            return (l ?? "", $0.objectID.primaryKey ?? 0) < (r ?? "", $1.objectID.primaryKey ?? 0)
        }
    }

    /// Runs `step`; a sync step calls `syncing`.
    static func run(_ step: Step, stores: [SyncTestStore], engines: [SyncEngine], syncing: (SyncEngine) async throws -> Void) async throws {
        func pick(_ entity: String, _ index: Int, _ context: ManagedObjectContext) throws -> ManagedObject? {
            let list = try objects(entity, in: context)
            return list.isEmpty ? nil : list[index % list.count]
        }
        switch step {
        case .insert(let store, let entity, let name):
            try stores[store].edit { context in
                let object = try context.insertNewObject(forEntityName: entity)
                try object.setValue(name, forKey: nameKey[entity] ?? "name")
            }
        case .rename(let store, let entity, let index, let name):
            try stores[store].edit { context in try pick(entity, index, context)?.setValue(name, forKey: nameKey[entity] ?? "name") }
        case .rank(let store, let index, let value):
            try stores[store].edit { context in try pick("Note", index, context)?.setValue(value, forKey: "rank") }
        case .file(let store, let note, let folder):
            try stores[store].edit { context in
                guard let note = try pick("Note", note, context) else { return }
                try note.setValue(try folder.flatMap { try pick("Folder", $0, context) }, forKey: "folder")
            }
        case .tag(let store, let note, let tag, let add):
            try stores[store].edit { context in
                guard let note = try pick("Note", note, context), let tag = try pick("Tag", tag, context) else { return }
                if add { try note.add(tag, toRelationship: "tags") } else { try note.remove(tag, fromRelationship: "tags") }
            }
        case .delete(let store, let entity, let index):
            try stores[store].edit { context in try pick(entity, index, context).map(context.delete) }
        case .sync(let store):
            try await syncing(engines[store])
        }
    }

    /// Runs one seed; returns nil when every store converged, else what differs. The script runs
    /// inside `around` and its syncs call `syncing`; the final rounds retry while a store fails
    /// (a server restarting).
    static func check(
        seed: UInt64, in directory: ScratchDirectory, model: ManagedObjectModel, server makeServer: () throws -> SyncTestStore, length: Int,
        syncing: @escaping (SyncEngine) async throws -> Void = { try await $0.sync() },
        around: (() async throws -> Void) async throws -> Void = { try await $0() }
    ) async throws -> String? {
        let server = try makeServer()
        let backends: [StoreBackend] = [.sqlite, .xml, .sqlite, .xml]
        let stores = try backends.enumerated().map { try SyncTestStore($1, in: directory, name: "local-\(seed)-\($0)", model: model) }
        let engines = try stores.map { try SyncEngine(local: $0.container, server: server.container) }
        let script = script(seed: seed, stores: stores.count, length: length)
        try await around {
            for step in script { try await run(step, stores: stores, engines: engines, syncing: syncing) }
        }
        for _ in 0..<2 { for engine in engines { try await engine.syncRetrying() } }
        let expected = try server.contents()
        for (index, store) in stores.enumerated() {
            let contents = try store.contents()
            guard contents == expected else {
                let diff = Set(contents.map { "\($0.key): \($0.value)" }).symmetricDifference(expected.map { "\($0.key): \($0.value)" }).sorted()
                return "seed \(seed): store \(index) differs from the server:\n  " + diff.joined(separator: "\n  ")
                    + "\nscript:\n  " + script.map(\.description).joined(separator: "\n  ")
            }
        }
        return nil
    }

    /// Runs `seeds` seeds two at a time (each on its own stores: the machine's two cores) and
    /// returns the failures, at most one per lane.
    static func checkSeeds(
        _ seeds: UInt64, in directory: ScratchDirectory, model: ManagedObjectModel, server: @escaping @Sendable (UInt64) throws -> SyncTestStore
    ) async throws -> [String] {
        let lanes: UInt64 = 2
        return try await withThrowingTaskGroup(of: String?.self) { group in
            for lane in 0..<lanes {
                group.addTask {
                    for seed in stride(from: lane, to: seeds, by: Int(lanes)) {
                        if let failure = try await check(seed: seed, in: directory, model: model, server: { try server(seed) }, length: 20) { return failure }
                    }
                    return nil
                }
            }
            var found: [String] = []
            for try await failure in group { if let failure { found.append(failure) } }
            return found
        }
    }

    func testEveryStoreConvergesAfterRandomOfflineEditsAndSyncs() async throws {
        let seeds = UInt64(ProcessInfo.processInfo.environment["STOWAGE_SYNC_SEEDS"].flatMap(Int.init) ?? 200)
        let directory = try ScratchDirectory()
        let model = try SyncTestModel.make()
        let failures = try await Self.checkSeeds(seeds, in: directory, model: model) { seed in
            try SyncTestStore(.sqlite, in: directory, name: "server-\(seed)", model: model)
        }
        for failure in failures { XCTFail(failure) }
    }

    #if Postgres
    /// The same scripts with a PostgreSQL server (`STOWAGE_POSTGRES_URL`; skipped without it).
    func testEveryStoreConvergesThroughAPostgreSQLServer() async throws {
        let model = try SyncTestModel.make()
        guard try SyncTestStore.postgres(name: "probe", model: model) != nil else {
            throw XCTSkip("PostgreSQL sync tests skipped: set STOWAGE_POSTGRES_URL (scripts/postgres-cluster start DIR prints one)")
        }
        let seeds = UInt64(ProcessInfo.processInfo.environment["STOWAGE_SYNC_POSTGRES_SEEDS"].flatMap(Int.init) ?? 200)
        let directory = try ScratchDirectory()
        let failures = try await Self.checkSeeds(seeds, in: directory, model: model) { seed in
            try XCTUnwrap(SyncTestStore.postgres(name: "server-\(seed)", model: model))
        }
        for failure in failures { XCTFail(failure) }
    }
    #endif
}
