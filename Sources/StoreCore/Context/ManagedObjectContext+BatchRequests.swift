import Foundation

extension ManagedObjectContext {
    /// Inserts rows straight into the store that holds the entity, without managed objects or a
    /// save (see ``BatchInsertRequest``). Posts no save notification; persistent history records
    /// it under this context's name and ``transactionAuthor``.
    ///
    /// For example:
    ///
    /// ```swift
    /// let request = BatchInsertRequest(entityName: "Quake", objects: rows)
    /// let inserted = try context.execute(request).status == true
    /// ```
    ///
    /// - Throws: ``ObjectValidationError`` naming the first bad row, or a uniqueness conflict under
    ///   ``MergePolicy/error``; ``ModelError`` for an unknown or abstract entity; ``StoreError``.
    ///   Nothing is written when it throws.
    @discardableResult
    public func execute(_ request: BatchInsertRequest) throws -> BatchResult {
        checkQueue(accessing: nil)
        let (coordinator, model) = try batchTarget()
        let entity = try model.entity(named: request.entityName)
        let reader = try BatchRowReader(request: request, entity: entity)
        let insert = StoreBatchRequest.Insert(
            entityName: entity.name, attributes: reader.attributes, onConflict: .init(mergePolicy), nextRow: reader.next)
        let result = try coordinator.execute(storeRequest(.insert(insert), model, request.resultType))
        return Self.batchResult(result, request.resultType, ids: result.inserted + result.updated)
    }

    /// Updates the objects a predicate selects straight in the store (see ``BatchUpdateRequest``).
    /// Posts no save notification: merge the returned IDs into live contexts with
    /// ``mergeChanges(fromRemoteContextSave:into:)``.
    ///
    /// For example:
    ///
    /// ```swift
    /// var request = BatchUpdateRequest(entityName: "Quake", predicate: "magnitude < 2")
    /// request.propertiesToUpdate = ["magnitude": try StoreExpression(format: "magnitude * 2")]
    /// try context.execute(request)
    /// ```
    @discardableResult
    public func execute(_ request: BatchUpdateRequest) throws -> BatchResult {
        checkQueue(accessing: nil)
        let (coordinator, model) = try batchTarget()
        _ = try BatchUpdateCheck.attributes(of: request, entity: try model.entity(named: request.entityName))
        let result = try coordinator.execute(storeRequest(.update(request), model, request.resultType))
        return Self.batchResult(result, request.resultType, ids: result.updated)
    }

    /// Deletes objects straight in the store, applying delete rules there (see
    /// ``BatchDeleteRequest``). Posts no save notification: merge the returned IDs into live
    /// contexts with ``mergeChanges(fromRemoteContextSave:into:)``.
    ///
    /// For example:
    ///
    /// ```swift
    /// var request = BatchDeleteRequest(objectIDs: ids)
    /// request.resultType = .objectIDs
    /// let deleted = try context.execute(request).objectIDs ?? []
    /// ManagedObjectContext.mergeChanges(fromRemoteContextSave: [.deletedObjectIDs: deleted], into: [context])
    /// ```
    ///
    /// - Throws: ``ObjectValidationError`` with code `deleteDenied` when a deny rule
    ///   refuses it (nothing is deleted); ``StoreError``.
    @discardableResult
    public func execute(_ request: BatchDeleteRequest) throws -> BatchResult {
        checkQueue(accessing: nil)
        let (coordinator, model) = try batchTarget()
        if case .fetchRequest(let fetch) = request.target { _ = try model.entity(named: fetch.entityName) }
        let result = try coordinator.execute(storeRequest(.delete(request.target), model, request.resultType))
        return Self.batchResult(result, request.resultType, ids: result.deleted)
    }

    /// Fetches or deletes persistent history (see ``PersistentHistoryChangeRequest``).
    ///
    /// For example:
    ///
    /// ```swift
    /// let result = try context.execute(PersistentHistoryChangeRequest.fetchHistory(after: token))
    /// ```
    ///
    /// - Throws: ``StoreError`` with code `unsupportedRequest` when no store records history.
    @discardableResult
    public func execute(_ request: PersistentHistoryChangeRequest) throws -> PersistentHistoryResult {
        checkQueue(accessing: nil)
        return try batchTarget().coordinator.execute(request)
    }

    private func batchTarget() throws -> (coordinator: PersistentStoreCoordinator, model: ManagedObjectModel) {
        guard let coordinator = persistentStoreCoordinator else { throw StoreError(.noStores, "\(self) has no persistent store coordinator") }
        return (coordinator, coordinator.managedObjectModel)
    }

    private func storeRequest(_ operation: StoreBatchRequest.Operation, _ model: ManagedObjectModel, _ type: BatchResultType) -> StoreBatchRequest {
        StoreBatchRequest(operation, model: model, wantsObjectIDs: type == .objectIDs, contextName: name, transactionAuthor: transactionAuthor)
    }

    private static func batchResult(_ result: StoreBatchResult, _ type: BatchResultType, ids: [ManagedObjectID]) -> BatchResult {
        switch type {
        case .statusOnly: .status(true)
        case .count: .count(result.count)
        case .objectIDs: .objectIDs(ids)
        }
    }

    /// Folds changes made outside any context — by a batch request, another process, or history —
    /// into live contexts: updated objects are refreshed, deleted ones leave each context. Keys are
    /// ``NotificationKey/insertedObjectIDs``, ``NotificationKey/updatedObjectIDs`` and
    /// ``NotificationKey/deletedObjectIDs`` (or the `inserted`/`updated`/`deleted` keys), values
    /// arrays or sets of object IDs — Core Data's `mergeChanges(fromRemoteContextSave:into:)`.
    /// Each context merges on its own queue; the call returns when all have.
    ///
    /// For example:
    ///
    /// ```swift
    /// let ids = try context.execute(deleteRequest).objectIDs ?? []
    /// ManagedObjectContext.mergeChanges(fromRemoteContextSave: [.deletedObjectIDs: ids], into: [viewContext])
    /// ```
    public static func mergeChanges(fromRemoteContextSave changes: [NotificationKey: [ManagedObjectID]], into contexts: [ManagedObjectContext]) {
        var merged = ContextChanges(kind: .didSave)
        for (key, ids) in changes {
            switch key {
            case .insertedObjectIDs, .insertedObjects: merged.insertedObjectIDs.formUnion(ids)
            case .updatedObjectIDs, .updatedObjects, .refreshedObjectIDs, .refreshedObjects: merged.updatedObjectIDs.formUnion(ids)
            case .deletedObjectIDs, .deletedObjects, .invalidatedObjectIDs, .invalidatedObjects: merged.deletedObjectIDs.formUnion(ids)
            case .changes: break
            }
        }
        for context in contexts {
            context.performAndWait { context.mergeChanges(from: merged) }
        }
    }
}
