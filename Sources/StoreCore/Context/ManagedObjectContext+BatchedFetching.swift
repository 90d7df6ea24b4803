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
        // Keep the IDs whose objects are `Result`s: a registered object by its own class (it may
        // have been inserted as a plain ManagedObject), any other by its entity's class (the
        // class its fault is made of), so every element casts to `Result`.
        var ids = try fetchRows(storeRequest).objectIDs
        let model = managedObjectModel
        let everyClassFits = entity.entityAndDescendantNames.allSatisfy { name in
            model?.entitiesByName[name]?.managedObjectClass.isSubclassOrSame(of: Result.self) == true
        }
        if !everyClassFits || !registered.isEmpty {
            ids.removeAll { id in
                if let object = registered[id] { return !(object is Result) }
                return model?.entitiesByName[id.entityName]?.managedObjectClass.isSubclassOrSame(of: Result.self) != true
            }
        }
        let batchSize = request.fetchBatchSize > 0 ? request.fetchBatchSize : 200
        return FetchedResults(objectIDs: ids, batchSize: batchSize, context: self)
    }
}
