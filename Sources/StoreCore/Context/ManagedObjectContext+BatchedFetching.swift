import Foundation

extension ManagedObjectContext {
    /// Runs a fetch request and returns its objects as a batched collection that materializes
    /// `fetchBatchSize` objects at a time and releases earlier batches (see ``FetchedResults``).
    ///
    /// For example:
    ///
    /// ```swift
    /// var request = FetchRequest<Post>()
    /// request.fetchBatchSize = 200
    /// for post in try context.fetchBatched(request) { print(post.title) }
    /// ```
    ///
    /// - Throws: the errors of ``fetch(_:)``.
    public func fetchBatched<Result: ManagedObject>(_ request: FetchRequest<Result>) throws -> FetchedResults<Result> {
        checkQueue(accessing: nil)
        let entity = try fetchedEntity(request.storeRequest)
        guard entity.managedObjectClass.isSubclassOrSame(of: Result.self) else {
            throw FetchError(.wrongResultType, "entity \(entity.name) is represented by \(entity.managedObjectClass), which is not \(Result.self)")
        }
        var storeRequest = request.storeRequest
        storeRequest.resultType = .managedObjectID
        var ids = try fetchObjectIDList(storeRequest, entity: entity)
        // Keep the IDs whose objects are `Result`s: a registered object by its own class (it may
        // have been inserted as a plain ManagedObject), any other by its entity's class (the
        // class its fault is made of), so every element casts to `Result`.
        let model = managedObjectModel
        let everyClassFits = entity.entityAndDescendantNames.allSatisfy { name in
            model?.entitiesByName[name]?.managedObjectClass.isSubclassOrSame(of: Result.self) == true
        }
        if !everyClassFits || registered.containsObject(where: { !($0 is Result) }) {
            ids = CompactObjectIDList(ids.filter { id in
                if let object = registered[id] { return object is Result }
                return model?.entitiesByName[id.entityName]?.managedObjectClass.isSubclassOrSame(of: Result.self) == true
            })
        }
        let batchSize = request.fetchBatchSize > 0 ? request.fetchBatchSize : 200
        return FetchedResults(objectIDs: ids, batchSize: batchSize, context: self)
    }

    /// The IDs an object-ID fetch matches, compactly: read straight from the parent store
    /// when no pending change of the fetched entity can change the answer, else through
    /// `fetchRows`, which folds the pending changes in.
    private func fetchObjectIDList(_ request: StoreFetchRequest, entity: EntityDescription) throws -> CompactObjectIDList {
        if request.includesPendingChanges {
            processPendingChanges()
            let accepts: (ManagedObject) -> Bool = { object in
                request.includesSubentities ? object.entity.isKind(of: entity) : object.entity === entity
            }
            if insertedSet.containsObject(where: accepts) || updatedSet.containsObject(where: accepts) || deletedSet.containsObject(where: accepts) {
                return CompactObjectIDList(try fetchRows(request).objectIDs)
            }
        }
        return try parentStore().objectIDListForChild(request)
    }
}
