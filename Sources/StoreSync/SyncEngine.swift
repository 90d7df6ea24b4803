import Foundation
import StoreCore
import Synchronization

/// Keeps a local store and a server store in step through their persistent history: pushes
/// the local changes, pulls the server's — Stowage's counterpart of Core Data's
/// `NSPersistentCloudKitContainer`, with CloudKit's `CKSyncEngine` loop, for any pair of store
/// types (PostgreSQL as the server in production, SQLite for tests and small setups).
///
/// Both stores need persistent history and ``modelEntities()`` in their model (docs/sync.md).
///
/// For example:
///
/// ```swift
/// let engine = try SyncEngine(local: container, server: serverContainer)
/// let summary = try await engine.sync()        // push, then pull
/// print(summary)
/// ```
public final class SyncEngine: Sendable {
    /// How the engine syncs, as `NSPersistentCloudKitContainerOptions` says how a container mirrors.
    ///
    /// For example:
    ///
    /// ```swift
    /// var options = SyncEngine.Options()
    /// options.excludedEntityNames = ["Draft"]
    /// let engine = try SyncEngine(local: container, server: serverContainer, options: options)
    /// ```
    public struct Options: Sendable {
        /// The transaction author of the engine's local saves. The push skips transactions by
        /// this author, so do not give it to your own contexts.
        public var transactionAuthor = "StowageSync"
        /// Entities that stay local (no relationship of a synced entity may lead to one).
        public var excludedEntityNames: Set<String> = []
        /// Decides attributes changed on both sides; `nil` keeps the local value (the push is
        /// last in server order). See ``SyncConflict``.
        public var conflictResolver: (@Sendable (SyncConflict) -> SyncConflict.Resolution)?
        /// Live sync: the first wait after a failed sync; it doubles after each further failure.
        public var retryDelay: Duration = .milliseconds(250)
        /// Live sync: the longest wait between retries.
        public var maximumRetryDelay: Duration = .seconds(30)

        /// Options with the defaults.
        public init() {}
    }

    /// The options the engine was made with.
    public let options: Options
    let local: PersistentStoreCoordinator
    let server: PersistentStoreCoordinator
    let plan: SyncModelPlan
    /// Runs one sync at a time.
    let queue = DispatchQueue(label: "stowage.sync")
    package let faultInjection = Mutex<(@Sendable (SyncStep) throws -> Void)?>(nil)
    let streams = Mutex<[UUID: AsyncStream<Event>.Continuation]>([:])
    let live = Mutex<LiveSync?>(nil)

    /// Makes an engine between the store of `local` and the store of `server` (one store each,
    /// loaded, with persistent history, models holding ``modelEntities()`` and the same synced
    /// entities).
    ///
    /// For example:
    ///
    /// ```swift
    /// let engine = try SyncEngine(local: container.persistentStoreCoordinator, server: serverCoordinator)
    /// ```
    ///
    /// - Throws: ``SyncError`` (`modelNotPrepared`, `unsupportedModel`, `storeNotReady`).
    public init(local: PersistentStoreCoordinator, server: PersistentStoreCoordinator, options: Options = Options()) throws {
        self.local = local
        self.server = server
        self.options = options
        plan = try SyncModelPlan(model: local.managedObjectModel, excluding: options.excludedEntityNames)
        let serverPlan = try SyncModelPlan(model: server.managedObjectModel, excluding: options.excludedEntityNames)
        let localHashes = local.managedObjectModel.entityVersionHashesByName
        let serverHashes = server.managedObjectModel.entityVersionHashesByName
        for name in Set(plan.entities.keys).union(serverPlan.entities.keys).sorted() where localHashes[name] != serverHashes[name] {
            throw SyncError(.unsupportedModel, entity: name, "the local and server models differ in entity \(name); sync needs the same synced entities on both sides")
        }
        _ = try SyncSession.storeIdentifier(of: local, side: "local")
        _ = try SyncSession.storeIdentifier(of: server, side: "server")
    }

    deinit { stopLiveSync() }

    /// Makes an engine between two loaded containers' stores.
    ///
    /// For example:
    ///
    /// ```swift
    /// let engine = try SyncEngine(local: container, server: serverContainer)
    /// ```
    public convenience init(local: PersistentContainer, server: PersistentContainer, options: Options = Options()) throws {
        try self.init(local: local.persistentStoreCoordinator, server: server.persistentStoreCoordinator, options: options)
    }

    /// Pushes the local changes since the last sync, then pulls the server's, and returns what
    /// moved. Posts an ``Event`` for each step. Safe to call at any time; syncs run one after another.
    ///
    /// For example:
    ///
    /// ```swift
    /// let summary = try await engine.sync()
    /// print(summary.pushed.total, summary.pulled.total)
    /// ```
    ///
    /// - Throws: ``SyncError``: `historyTokenExpired` when the server deleted history this client
    ///   had not pulled (call ``resynchronize()``); `storeFailed` when a store could not be read
    ///   or written — the tokens did not move past what was written, so the next sync resumes.
    @discardableResult
    public func sync() async throws -> SyncSummary {
        try await run { try self.syncNow(resynchronizing: false) }
    }

    /// Recovers from ``SyncError/Code/historyTokenExpired``: pushes the local changes, then reads
    /// every object the server holds (not its history) into the local store — objects the
    /// server no longer has are deleted here, local changes not yet pushed are kept.
    ///
    /// For example:
    ///
    /// ```swift
    /// do { try await engine.sync() } catch SyncError.Code.historyTokenExpired { try await engine.resynchronize() }
    /// ```
    @discardableResult
    public func resynchronize() async throws -> SyncSummary {
        try await run { try self.syncNow(resynchronizing: true) }
    }

    /// The newest local transaction pushed: local history up to it may be deleted without
    /// hiding changes from the engine.
    ///
    /// For example:
    ///
    /// ```swift
    /// if let token = try engine.lastPushedToken() {
    ///     try context.execute(PersistentHistoryChangeRequest.deleteHistory(before: token))
    /// }
    /// ```
    public func lastPushedToken() throws -> PersistentHistoryToken? {
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = local
        let storeID = try SyncSession.storeIdentifier(of: local, side: "local")
        return try context.performAndWait {
            try SyncStateRow.existing(SyncStateRow.localKey, in: context)?.pushedTransaction
        }.map { PersistentHistoryToken(storeIdentifier: storeID, transactionNumber: $0) }
    }

    private func run(_ work: @escaping @Sendable () throws -> SyncSummary) async throws -> SyncSummary {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try work() }) }
        }
    }

    /// One sync on the engine's queue.
    func syncNow(resynchronizing: Bool) throws -> SyncSummary {
        let session = try SyncSession(engine: self, local: local, server: server)
        let isNew = try SyncError.mappingStoreFailures {
            try session.local.performAndWait { try SyncStateRow.existing(SyncStateRow.localKey, in: session.local)?.clientID == nil }
        }
        if isNew || resynchronizing {
            try reporting(.setup, session) { try session.setUp() }
        } else {
            try SyncError.mappingStoreFailures { try session.setUp() }
        }
        try reporting(.export, session) { try session.push(detectingConflicts: !resynchronizing) }
        try reporting(.import, session) { try session.pull(everything: resynchronizing || session.pulledTransaction == nil) }
        return session.summary
    }

    private func reporting(_ type: EventType, _ session: SyncSession, _ work: () throws -> Void) throws {
        let start = Event(identifier: UUID(), storeIdentifier: session.localStoreID, type: type, startDate: Date(), endDate: nil, succeeded: false, error: nil, changes: SyncChangeCounts())
        post(start)
        let before = session.summary
        do {
            try SyncError.mappingStoreFailures(work)
        } catch {
            post(Event(identifier: start.identifier, storeIdentifier: start.storeIdentifier, type: type, startDate: start.startDate, endDate: Date(), succeeded: false, error: error, changes: SyncChangeCounts()))
            throw error
        }
        let moved: SyncChangeCounts = switch type {
        case .export: session.summary.pushed.minus(before.pushed)
        case .import: session.summary.pulled.minus(before.pulled)
        case .setup: SyncChangeCounts()
        }
        post(Event(identifier: start.identifier, storeIdentifier: start.storeIdentifier, type: type, startDate: start.startDate, endDate: Date(), succeeded: true, error: nil, changes: moved))
    }
}

extension SyncChangeCounts {
    func minus(_ other: SyncChangeCounts) -> SyncChangeCounts {
        SyncChangeCounts(inserted: inserted - other.inserted, updated: updated - other.updated, deleted: deleted - other.deleted)
    }
}
