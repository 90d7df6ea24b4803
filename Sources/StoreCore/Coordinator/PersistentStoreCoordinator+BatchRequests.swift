import Foundation

extension PersistentStoreCoordinator {
    /// Runs a batch request in the store that holds its entity (or, for a delete by IDs, in each
    /// store holding some of them), then forgets the cached snapshots it made stale.
    func execute(_ request: StoreBatchRequest) throws -> StoreBatchResult {
        defer { noteWrite() }
        let result: StoreBatchResult
        switch request.operation {
        case .insert(let insert):
            result = try store(forEntity: insert.entityName).execute(request)
        case .update(let update):
            result = try store(forEntity: update.entityName).execute(request)
        case .delete(.fetchRequest(let fetch)):
            result = try store(forEntity: fetch.entityName).execute(request)
        case .delete(.objectIDs(let ids)):
            var combined = StoreBatchResult()
            for store in persistentStores {
                let mine = ids.filter { $0.storeIdentifier == store.identifier }
                guard !mine.isEmpty else { continue }
                var part = request
                part.operation = .delete(.objectIDs(mine))
                let partial = try store.execute(part)
                combined.count += partial.count
                combined.deleted += partial.deleted
                combined.updated += partial.updated
            }
            result = combined
        }
        let entities: Set<String> = switch request.operation {
        case .insert(let insert): [insert.entityName]
        case .update(let update): [update.entityName]
        case .delete(.fetchRequest(let fetch)): [fetch.entityName]
        case .delete(.objectIDs(let ids)): Set(ids.map(\.entityName))
        }
        didCommit(StoreCommit(entityNames: entities))
        return result
    }

    /// Fetches or deletes history in every store that records it (for a token, in its store only).
    func execute(_ request: PersistentHistoryChangeRequest) throws -> PersistentHistoryResult {
        var stores = persistentStores.compactMap { $0 as? any PersistentHistoryStore }.filter(\.isHistoryTrackingEnabled)
        if case .token(let token?) = request.bound { stores = stores.filter { $0.identifier == token.storeIdentifier } }
        guard !stores.isEmpty else {
            throw StoreError(.unsupportedRequest, "no loaded store records persistent history; load it with the persistentHistoryTracking option")
        }
        if stores.count == 1 { return try stores[0].execute(request) }
        let results = try stores.map { try $0.execute(request) }
        switch request.resultType {
        case .statusOnly: return .status(true)
        case .count: return .count(results.reduce(0) { $0 + ($1.count ?? 0) })
        case .changesOnly: return .changes(results.flatMap { $0.changes ?? [] })
        case .transactionsOnly, .transactionsAndChanges:
            return .transactions(results.flatMap { $0.transactions ?? [] }.sorted { ($0.timestamp, $0.token) < ($1.timestamp, $1.token) })
        }
    }

    /// The latest history token of each given store that records history (all stores by default).
    ///
    /// For example:
    ///
    /// ```swift
    /// let tokens = try coordinator.currentPersistentHistoryTokens()
    /// ```
    public func currentPersistentHistoryTokens(fromStores stores: [any PersistentStore]? = nil) throws -> [PersistentHistoryToken] {
        try (stores ?? persistentStores).compactMap { $0 as? any PersistentHistoryStore }.filter(\.isHistoryTrackingEnabled).compactMap { try $0.currentHistoryToken() }
    }

    /// The latest history token of the coordinator's only (or first) store that records history.
    public func currentPersistentHistoryToken(fromStores stores: [any PersistentStore]? = nil) throws -> PersistentHistoryToken? {
        try currentPersistentHistoryTokens(fromStores: stores).first
    }
}
