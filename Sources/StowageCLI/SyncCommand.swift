import ArgumentParser
import Foundation
import Stowage

/// `stowage sync`: one sync between a local store and a server store — push the local
/// changes, pull the server's — printing what moved (docs/sync.md).
struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Sync a local store with a server store once, and print what moved.",
        discussion: """
            Both stores need the sync engine's entities in their model (SyncEngine.modelEntities()) \
            and keep persistent history. The local store's type is detected from the file; the \
            server is a postgres:// URL, or a store file (a new one is made as SQLite). --model \
            names the model (an Xcode model file or a compiled one); without it, the local \
            store's own copy of its model is used (SQLite stores keep one, Z_MODELCACHE). With \
            --resynchronize the local store reads every object from the server instead of its \
            history (after a "history token expired" error). With --live it keeps running, syncing \
            after every commit to either store (by any process) and printing each step, until \
            interrupted. See docs/sync.md.
            """
    )

    @Argument(help: "The local store (SQLite, XML or binary).")
    var local: String

    @Option(name: .customLong("with"), help: "The server store: a postgres:// URL, or a store file.")
    var server: String

    @Option(help: "The model of both stores: .xcdatamodeld / .xcdatamodel (Xcode) or .momd / .mom (compiled). Default: the local store's own copy.")
    var model: ModelChoice?

    @Flag(help: "Read every object from the server rather than its history (recovers from an expired history token).")
    var resynchronize = false

    @Flag(help: "Keep syncing after every commit to either store, printing each step, until interrupted.")
    var live = false

    func run() async throws {
        let localURL = try StoreLocation(local).url
        guard localURL.isFileURL, FileManager.default.fileExists(atPath: localURL.path) else {
            throw ValidationError("the local store must be an existing file: \(local)")
        }
        let localType = try PersistentStoreType(detectingStoreAt: localURL)
        let managedObjectModel: ManagedObjectModel
        if let model {
            managedObjectModel = try model.make(forStoreAt: localURL, type: localType).model
        } else {
            let inferred = try InferredModel(storeAt: localURL)
            guard inferred.source == .modelCache else {
                throw ValidationError("the local store keeps no copy of its model; pass --model")
            }
            managedObjectModel = inferred.model
        }
        let serverURL = try StoreLocation(server).url
        let serverType: PersistentStoreType = if !serverURL.isFileURL {
            .postgres
        } else if FileManager.default.fileExists(atPath: serverURL.path) {
            try PersistentStoreType(detectingStoreAt: serverURL)
        } else {
            .sqlite
        }
        let localContainer = try Self.container("Local", managedObjectModel, localType, localURL)
        let serverContainer = try Self.container("Server", managedObjectModel, serverType, serverURL)
        let engine = try SyncEngine(local: localContainer, server: serverContainer)
        let summary = resynchronize ? try await engine.resynchronize() : try await engine.sync()
        print("Synced \(StoreLocation.display(localURL)) with \(StoreLocation.display(serverURL)):")
        print("  pushed \(Self.count(summary.pushedTransactions, "transaction")): \(summary.pushed)")
        print("  pulled \(summary.pulledEverything ? "every object (a full read)" : Self.count(summary.pulledTransactions, "transaction")): \(summary.pulled)")
        if summary.conflicts > 0 { print("  \(Self.count(summary.conflicts, "conflict")) resolved") }
        guard live else { return }
        print("Syncing live; interrupt to stop.")
        let events = engine.events()
        engine.startLiveSync()
        for await event in events where event.endDate != nil && (event.objectCount > 0 || !event.succeeded) {
            print("\(event.type): \(event.succeeded ? "\(event.changes)" : "failed: \(event.error.map { "\($0)" } ?? "")")")
        }
    }

    private static func container(_ name: String, _ model: ManagedObjectModel, _ type: PersistentStoreType, _ url: URL) throws -> PersistentContainer {
        let container = PersistentContainer(name: name, managedObjectModel: model)
        var description = PersistentStoreDescription(type: type, url: url)
        description.isHistoryTrackingEnabled = true
        description.shouldMigrateStoreAutomatically = false
        // Commits by other processes (and, for the server, other machines) start a live sync.
        description.setOption(true, forKey: .remoteChangeNotificationPost)
        container.persistentStoreDescriptions = [description]
        try container.loadPersistentStores()
        return container
    }

    private static func count(_ number: Int, _ noun: String) -> String { "\(number) \(noun)\(number == 1 ? "" : "s")" }
}
