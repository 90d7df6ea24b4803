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

    /// The objects for `ids`, their values loaded in one request to the store for the faults among them.
    func materialize(_ ids: [ManagedObjectID]) -> [ManagedObject] {
        let objects = ids.compactMap { registeredOrFaultObject(for: $0) }
        fulfillFaults(objects.filter(\.isFault), batchSize: max(objects.count, 1))
        return objects
    }

    /// Loads the values of faults, `batchSize` objects per store request (deleting or changing
    /// many unread objects costs a few queries, not one each). A fault the store does not
    /// return, or whose batch fails, stays a fault: reading it reports why.
    func fulfillFaults(_ objects: [ManagedObject], batchSize: Int = 500) {
        var pending: [ManagedObjectID] = []
        for object in objects where object.isFault {
            if let snapshot = prefetchedSnapshots.removeValue(forKey: object.objectID) {
                object.load(snapshot)
                object.awakeFromFetch()
            } else {
                pending.append(object.objectID)
            }
        }
        for start in stride(from: 0, to: pending.count, by: batchSize) {
            let batch = Array(pending[start..<min(start + batchSize, pending.count)])
            guard let snapshots = try? parentStore().snapshotsForChild(batch) else { continue }
            for snapshot in snapshots {
                guard let object = registered[snapshot.objectID], object.isFault else { continue }
                object.load(snapshot)
                object.awakeFromFetch()
            }
        }
    }

    /// Lets go of unchanged objects nothing else references once the context has doubled in
    /// size since the last pass (so the passes cost O(1) per registration, amortized), unless
    /// ``retainsRegisteredObjects`` is set.
    func releaseUnreferencedObjectsIfGrown() {
        guard !retainsRegisteredObjects, registered.count >= Swift.max(1024, 2 * registeredAfterRelease) else { return }
        releaseUnreferencedObjects(Array(registered.keys))
        registeredAfterRelease = registered.count
    }

    /// Forgets registered objects that nothing else references and that have no unsaved
    /// changes, so a batched result's earlier batches can be freed. An object still referenced
    /// (by the caller, another object or a change set) stays registered, so uniquing holds.
    func releaseUnreferencedObjects(_ ids: [ManagedObjectID]) {
        for id in ids {
            guard var object = registered.removeValue(forKey: id) else { continue }
            if object.hasChanges || !object.state.relationshipFailures.isEmpty || !isKnownUniquelyReferenced(&object) {
                registered[id] = object
            } else {
                prefetchedSnapshots[id] = nil
            }
        }
    }
}
