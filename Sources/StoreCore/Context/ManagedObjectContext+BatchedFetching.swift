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
        let model = managedObjectModel
        // Every ID names an entity of the model whose class is `Result` or a subclass (fetches of
        // an entity return it and its sub-entities only), so every element casts to `Result`.
        let ids = try fetchRows(storeRequest).ids.filter { id in
            model?.entitiesByName[id.entityName]?.managedObjectClass.isSubclassOrSame(of: Result.self) == true
        }
        let batchSize = request.fetchBatchSize > 0 ? request.fetchBatchSize : 200
        return FetchedResults(objectIDs: ids, batchSize: batchSize, context: self)
    }
}
