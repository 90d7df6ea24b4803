import Foundation
import StoreCore

/// One run of the sync loop: the contexts on both stores, the identities read so far, and the
/// counts. Made and used on the engine's queue; each context only inside its `performAndWait`.
final class SyncSession {
    let plan: SyncModelPlan
    let options: SyncEngine.Options
    let local: ManagedObjectContext
    let server: ManagedObjectContext
    let localStoreID: String
    let serverStoreID: String
    /// Set by ``SyncSession/setUp()``.
    var clientID = ""
    /// The newest server transaction pulled, as the local state row held it at set-up.
    var pulledTransaction: Int64?
    var summary = SyncSummary()
    /// Test hook: called with a step's name before the step; throwing stops the sync there.
    let faultInjection: (@Sendable (SyncStep) throws -> Void)?

    init(engine: SyncEngine, local: PersistentStoreCoordinator, server: PersistentStoreCoordinator) throws {
        plan = engine.plan
        options = engine.options
        faultInjection = engine.faultInjection.withLock { $0 }
        localStoreID = try Self.storeIdentifier(of: local, side: "local")
        serverStoreID = try Self.storeIdentifier(of: server, side: "server")
        self.local = ManagedObjectContext(concurrencyType: .privateQueue)
        self.local.persistentStoreCoordinator = local
        self.local.transactionAuthor = options.transactionAuthor
        self.local.name = "StowageSync"
        // A user's save between the engine's read and its write keeps the user's values; they
        // are pushed next (server order then gives them the last word).
        self.local.mergePolicy = .mergeByPropertyStoreTrump
        self.server = ManagedObjectContext(concurrencyType: .privateQueue)
        self.server.persistentStoreCoordinator = server
        self.server.name = "StowageSync"
        // Another client's push between this read and write: this push comes later in server order.
        self.server.mergePolicy = .mergeByPropertyObjectTrump
    }

    static func storeIdentifier(of coordinator: PersistentStoreCoordinator, side: String) throws -> String {
        let stores = coordinator.persistentStores
        guard stores.count == 1, let store = stores.first else {
            throw SyncError(.storeNotReady, "the \(side) coordinator has \(stores.count) stores loaded; the sync engine needs exactly one")
        }
        guard let history = store as? any PersistentHistoryStore, history.isHistoryTrackingEnabled else {
            throw SyncError(.storeNotReady, "the \(side) store does not track persistent history: set description.isHistoryTrackingEnabled = true")
        }
        return store.identifier
    }

    func step(_ step: SyncStep) throws {
        try faultInjection?(step)
    }

    /// The history of `context`'s store after transaction `number` (all of it for `nil`),
    /// narrowed by `only` when given.
    func history(
        of context: ManagedObjectContext, storeID: String, after number: Int64?, side: String, only: PersistentHistoryFetchRequest? = nil
    ) throws -> [PersistentHistoryTransaction] {
        let token = number.map { PersistentHistoryToken(storeIdentifier: storeID, transactionNumber: $0) }
        var request = PersistentHistoryChangeRequest.fetchHistory(after: token)
        request.fetchRequest = only
        do {
            return try context.execute(request).transactions ?? []
        } catch StoreError.Code.persistentHistoryTokenExpired {
            throw SyncError(.historyTokenExpired, "the \(side) store deleted history after transaction \(number ?? 0) that this client had not \(side == "server" ? "pulled" : "pushed"); \(side == "server" ? "call resynchronize()" : "see docs/sync.md")")
        }
    }

    /// The object with this ID in `context`, or nil when it no longer exists.
    static func existing(_ id: ManagedObjectID, in context: ManagedObjectContext) throws -> ManagedObject? {
        do {
            let object = try context.existingObject(with: id)
            return object.isDeleted ? nil : object
        } catch StoreError.Code.objectNotFound {
            return nil
        }
    }

    /// The newest transaction of `context`'s store, read before a history fetch narrowed to
    /// others' transactions: every transaction up to it that the fetch leaves out is one it
    /// excluded (a transaction committed after the read is either in the fetch or after it).
    static func newestTransaction(of context: ManagedObjectContext) throws -> Int64? {
        try context.persistentStoreCoordinator?.currentPersistentHistoryToken()?.transactionNumber
    }

    /// From this many objects of one kind on, a read compares their number with the entity's
    /// and, when they are most of it, reads the whole entity in one fetch instead of 500 at a time.
    static let wholeEntityThreshold = 2_000

    /// Whether reading all `entityName`'s objects is cheaper than reading `wanted` of them by key:
    /// they are at least half of it.
    static func readsWholeEntity(_ entityName: String, wanted: Int, in context: ManagedObjectContext) throws -> Bool {
        guard wanted >= wholeEntityThreshold else { return false }
        var request = FetchRequest<ManagedObject>(entityName: entityName)
        request.includesSubentities = false
        return try context.count(for: request) <= 2 * wanted
    }

    /// The objects with these IDs that still exist, read with one fetch per entity and 500 IDs
    /// (rather than one read per object), or with one fetch of the whole entity when they are
    /// most of it; the dictionary keeps them registered in `context`.
    static func objects(_ ids: some Sequence<ManagedObjectID>, in context: ManagedObjectContext) throws -> [ManagedObjectID: ManagedObject] {
        var byEntity: [String: [ManagedObjectID]] = [:]
        for id in Set(ids) { byEntity[id.entityName, default: []].append(id) }
        var found: [ManagedObjectID: ManagedObject] = [:]
        for (entityName, list) in byEntity {
            if try readsWholeEntity(entityName, wanted: list.count, in: context) {
                let wanted = Set(list)
                var request = FetchRequest<ManagedObject>(entityName: entityName)
                request.includesSubentities = false
                for object in try context.fetch(request) where !object.isDeleted && wanted.contains(object.objectID) { found[object.objectID] = object }
                continue
            }
            for start in stride(from: 0, to: list.count, by: 500) {
                var request = FetchRequest<ManagedObject>(
                    entityName: entityName, predicate: .sync(nil, in: list[start..<min(start + 500, list.count)].map(StoreValue.objectID)))
                request.includesSubentities = false
                for object in try context.fetch(request) where !object.isDeleted { found[object.objectID] = object }
            }
        }
        return found
    }

    /// Saves `context` when it has changes, as a ``SyncError`` naming the side on failure.
    static func save(_ context: ManagedObjectContext, side: String) throws {
        guard context.hasChanges || context.hasPendingRowInsertions else { return }
        do {
            try context.save()
        } catch {
            throw SyncError(.storeFailed, "saving the \(side) store failed; nothing of this step was written", underlying: error)
        }
    }
}

extension StorePredicate {
    /// `key IN values` (`SELF IN values` for `nil`), built as a tree: a format string with
    /// hundreds of arguments costs more to parse than the fetch it makes.
    static func sync(_ key: String?, in values: [StoreValue]) -> StorePredicate {
        .comparison(StoreComparison(key.map(StoreExpression.keyPath) ?? .evaluatedObject, .in, .aggregate(values.map(StoreExpression.constant))))
    }
}

/// The steps of a sync, in order; tests stop a sync before any of them (fault injection).
package enum SyncStep: String, Sendable, CaseIterable {
    case setUp, assignIdentities, pushTransaction, recordPushed, readServerChanges, applyPulled
}
