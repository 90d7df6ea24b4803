import Foundation

extension ManagedObjectContext {
    /// Runs a fetch request and returns its results: objects, object IDs or dictionaries,
    /// as the request's type says. Unsaved changes are included unless the request says not to.
    ///
    /// For example:
    ///
    /// ```swift
    /// var request = FetchRequest<Post>()
    /// request.sortDescriptors = [.descending("timestamp")]
    /// let posts = try context.fetch(request)
    /// ```
    ///
    /// - Throws: ``ModelError`` for an unknown entity; ``FetchError`` for an unknown key
    ///   (`invalidKeyPath`), a request the store cannot run, or a result type that does not match
    ///   the entity's class.
    public func fetch<Result: FetchRequestResult>(_ request: FetchRequest<Result>) throws -> [Result] {
        checkQueue(accessing: nil)
        let entity = try fetchedEntity(request.storeRequest)
        switch request.storeRequest.resultType {
        case .managedObject:
            guard let objectType = Result.self as? ManagedObject.Type,
                entity.managedObjectClass.isSubclassOrSame(of: objectType)
            else {
                throw FetchError(.wrongResultType, "entity \(entity.name) is represented by \(entity.managedObjectClass), which is not \(Result.self)")
            }
            // Sub-entities' objects must be of the result's class too, or they would drop out of
            // the results silently.
            if request.storeRequest.includesSubentities, entity.entityAndDescendantNames.count > 1 {
                for name in entity.entityAndDescendantNames.sorted() {
                    guard let subentity = entity.model?.entitiesByName[name],
                        !subentity.managedObjectClass.isSubclassOrSame(of: objectType)
                    else { continue }
                    throw FetchError(.wrongResultType, "sub-entity \(name) of \(entity.name) is represented by \(subentity.managedObjectClass), which is not \(Result.self); fetch \(entity.name) as ManagedObject, or set includesSubentities to false")
                }
            }
            var ofEntityClasses = false
            let objects = try fetchObjects(request.storeRequest, ofEntityClasses: &ofEntityClasses)
            return Self.typedObjects(objects, as: objectType, Result.self, checked: ofEntityClasses)
        case .managedObjectID:
            return try fetchRows(request.storeRequest).objectIDs.compactMap { $0 as? Result }
        case .dictionary:
            guard case .dictionaries(let rows) = try parentStore().fetchForChild(request.storeRequest) else {
                throw FetchError(.wrongResultType, "the store did not return dictionaries for a dictionary fetch")
            }
            return rows.compactMap { $0 as? Result }
        case .count:
            throw FetchError(.wrongResultType, "use count(for:) to count results")
        }
    }

    /// The number of objects a request would return (limit and offset applied).
    public func count<Result>(for request: FetchRequest<Result>) throws -> Int {
        checkQueue(accessing: nil)
        var storeRequest = request.storeRequest
        storeRequest.resultType = .count
        _ = try fetchedEntity(storeRequest)
        return try fetchRows(storeRequest).count
    }

    // MARK: Internals

    /// What a fetch found, in result order: the snapshots the store returned, or IDs only (when
    /// it returned no values).
    struct FetchedRows {
        var ids: [ManagedObjectID] = []
        var snapshots: [StoreSnapshot] = []
        var count: Int = 0

        /// The IDs of what was found, whichever form the store returned.
        var objectIDs: [ManagedObjectID] { snapshots.isEmpty ? ids : snapshots.map(\.objectID) }
    }

    func fetchedEntity(_ request: StoreFetchRequest) throws -> EntityDescription {
        guard let model = managedObjectModel else { throw StoreError(.noStores, "\(self) has no persistent store coordinator") }
        if let failure = request.translationFailure { throw FetchError(.untranslatablePredicate, failure) }
        return try model.entity(named: request.entityName)
    }

    func fetchObjects(_ request: StoreFetchRequest) throws -> [ManagedObject] {
        var ofEntityClasses = false
        return try fetchObjects(request, ofEntityClasses: &ofEntityClasses)
    }

    /// The objects of a fetch; `ofEntityClasses` tells whether each is known to be an instance
    /// of its entity's class — checked as each is made or found, while it is in the cache, so
    /// that a typed fetch need not walk the results again.
    func fetchObjects(_ request: StoreFetchRequest, ofEntityClasses: inout Bool) throws -> [ManagedObject] {
        ofEntityClasses = false
        if request.fetchBatchSize > 0 {
            // Values are loaded a batch at a time, one store request per batch.
            var idRequest = request
            idRequest.resultType = .managedObjectID
            let ids = try fetchRows(idRequest).objectIDs
            return stride(from: 0, to: ids.count, by: request.fetchBatchSize).flatMap { start in
                materialize(Array(ids[start..<min(start + request.fetchBatchSize, ids.count)]))
            }
        }
        var rows = try fetchRows(request)
        defer { releaseUnreferencedObjectsIfGrown(holding: rows.count) }
        guard !rows.snapshots.isEmpty else { return rows.ids.compactMap { registeredOrFaultObject(for: $0) } }
        guard let model = managedObjectModel else { throw StoreError(.noStores, "\(self) has no persistent store coordinator") }
        // The snapshots are taken out of the array one by one from its end, not copied: a copy
        // costs a retain and a release for each of a snapshot's references. Rows come mostly
        // in ascending key order, so room for the keys is made first (registered from the
        // highest key down, the objects would otherwise go to the registration table's sparse
        // dictionary), and the objects, made last to first, are put in order at the end.
        var snapshots = rows.snapshots
        rows.snapshots = []
        if let last = snapshots.last { registered.reserve(upTo: last.objectID, adding: snapshots.count) }
        var objects: [ManagedObject] = []
        objects.reserveCapacity(snapshots.count)
        var refreshed: [ManagedObject] = []
        // The rows of one fetch mostly share an entity: it is found in the model once, not by name per row.
        var rowEntity: EntityDescription?
        var modelEntity: EntityDescription?
        // The array of rows is let go of as it empties (see `movedToSmallerBuffer`): the objects
        // grow as the rows go, and at the end of a large fetch the rows' array — 48 bytes a row,
        // grown by doubling — was a tenth of what the fetch held at its peak.
        var shrinkAt = snapshots.capacity / 2
        var allOfEntityClasses = true
        while let snapshot = snapshots.popLast() {
            if snapshots.count <= shrinkAt {
                if snapshots.count >= Self.smallestShrunkRowArray { snapshots.moveToSmallerBuffer() }
                shrinkAt = snapshots.count / 2
            }
            if request.shouldRefreshRefetchedObjects, let held = registered[snapshot.objectID], !held.isFault, !held.hasChanges {
                if held.committedSnapshot != snapshot {
                    held.load(consume snapshot)
                    refreshed.append(held)
                }
                if ObjectIdentifier(type(of: held)) != ObjectIdentifier(held.entity.managedObjectClass) { allOfEntityClasses = false }
                objects.append(held)
                continue
            }
            if snapshot.entity !== rowEntity {
                rowEntity = snapshot.entity
                modelEntity = model.entitiesByName[snapshot.objectID.entityName]
            }
            guard let entity = modelEntity else { continue }
            let object = registeredObject(loading: consume snapshot, of: entity, asFault: request.returnsObjectsAsFaults)
            if ObjectIdentifier(type(of: object)) != ObjectIdentifier(entity.managedObjectClass) { allOfEntityClasses = false }
            objects.append(object)
        }
        ofEntityClasses = allOfEntityClasses
        // Reversed through the buffer: swapping array elements retained and released each object.
        objects.withUnsafeMutableBufferPointer { $0.reverse() }
        refreshed.reverse()
        if !refreshed.isEmpty { postObjectsDidChange(refreshed: refreshed) }
        return objects
    }

    /// Below this many rows, an emptying array of rows is not moved to a smaller buffer (the
    /// move is not worth its copying).
    static let smallestShrunkRowArray = 4096

    /// Runs a request against the parent store and folds in this context's pending changes.
    func fetchRows(_ request: StoreFetchRequest) throws -> FetchedRows {
        let entity = try fetchedEntity(request)
        if request.includesPendingChanges { processPendingChanges() }
        let accepts: (ManagedObject) -> Bool = { object in
            request.includesSubentities ? object.entity.isKind(of: entity) : object.entity === entity
        }
        let pendingInserted = request.includesPendingChanges ? insertedSet.values.filter(accepts) : []
        let pendingUpdated = request.includesPendingChanges ? updatedSet.values.filter(accepts) : []
        let pendingDeleted = request.includesPendingChanges ? deletedSet.values.filter(accepts) : []
        let hasPending = !pendingInserted.isEmpty || !pendingUpdated.isEmpty || !pendingDeleted.isEmpty

        var storeRequest = request
        if hasPending {
            storeRequest.fetchLimit = 0
            storeRequest.fetchOffset = 0
            storeRequest.resultType = .managedObjectID
        } else if request.resultType == .managedObject && !request.includesPropertyValues {
            storeRequest.resultType = .managedObjectID
        }
        // Objects held with values keep them (unless refreshed), so their rows' values may stay
        // unread; a context holding no object has nothing to ask about.
        let result = storeRequest.resultType == .managedObject && !request.shouldRefreshRefetchedObjects && !registered.isEmpty
            ? try parentStore().fetchForChild(storeRequest, knownRows: knownRows)
            : try parentStore().fetchForChild(storeRequest)
        var rows = FetchedRows()
        switch result {
        case .count(let n):
            rows.count = n
            return rows
        case .objectIDs(let ids):
            rows.ids = ids
        case .snapshots(let snapshots):
            rows.snapshots = snapshots
        case .dictionaries:
            throw FetchError(.wrongResultType, "the store returned dictionaries for a \(request.resultType) fetch")
        }
        guard hasPending else {
            rows.count = rows.snapshots.isEmpty ? rows.ids.count : rows.snapshots.count
            return rows
        }

        var predicate = request.predicate.map { CompiledPredicate<ManagedObject>($0, fallbackSource: { $0 }) }
        let excluded = Set((pendingDeleted + pendingUpdated).map(\.objectID))
        var candidates: [ManagedObject] = rows.objectIDs.filter { !excluded.contains($0) }.compactMap { registeredOrFaultObject(for: $0) }
        for object in pendingUpdated + pendingInserted {
            if try predicate?.evaluate(object) ?? true { candidates.append(object) }
        }
        if !request.sortDescriptors.isEmpty {
            var sortKeys = CompiledSortKeys<ManagedObject>(request.sortDescriptors, fallbackSource: { $0 })
            var keys: [StoreValue] = []
            for object in candidates { try sortKeys.appendKeys(of: object, to: &keys) }
            candidates = SortComparator(request.sortDescriptors).sort(candidates, flatKeys: keys)
        }
        if request.fetchOffset > 0 { candidates = Array(candidates.dropFirst(request.fetchOffset)) }
        if request.fetchLimit > 0 { candidates = Array(candidates.prefix(request.fetchLimit)) }
        rows.ids = candidates.map(\.objectID)
        rows.count = rows.ids.count
        rows.snapshots = []
        return rows
    }
}

extension ManagedObjectContext: ObjectStoreParent {
    func fetchForChild(_ request: StoreFetchRequest) throws -> StoreFetchResult {
        if request.resultType == .dictionary { return try parentStore().fetchForChild(request) }
        return try performAndWait {
            let rows = try fetchRows(request)
            switch request.resultType {
            case .count: return .count(rows.count)
            case .managedObjectID: return .objectIDs(rows.objectIDs)
            default:
                if !rows.snapshots.isEmpty {
                    // Nothing pending here: the parent's rows, with this context's unsaved values where
                    // it holds the object unfaulted.
                    return .snapshots(rows.snapshots.map { snapshot in
                        guard let object = registered[snapshot.objectID], !object.isFault else { return snapshot }
                        return object.currentSnapshot()
                    })
                }
                return .snapshots(rows.ids.compactMap { id in registeredOrFaultObject(for: id)?.currentSnapshot() })
            }
        }
    }

    func snapshotForChild(_ objectID: ManagedObjectID) throws -> StoreSnapshot? {
        try performAndWait {
            if let object = registered[objectID] {
                if object.state.isDeleted { return nil }
                if object.isFault { fulfillFault(object) }
                if let failure = object.state.faultFailure {
                    if failure.code == .objectNotFound { return nil }
                    throw failure
                }
                return object.currentSnapshot()
            }
            return try parentStore().snapshotForChild(objectID)
        }
    }

    func snapshotsForChild(_ objectIDs: [ManagedObjectID]) throws -> [StoreSnapshot] {
        try objectIDs.compactMap { try snapshotForChild($0) }
    }

    func relationshipForChild(_ name: String, of objectID: ManagedObjectID) throws -> [ManagedObjectID] {
        try performAndWait {
            if let object = registered[objectID], let index = object.entity.propertyIndexes[name] {
                return object.toManyObjects(at: index).objects.filter { !$0.state.isDeleted }.map(\.objectID)
            }
            return try parentStore().relationshipForChild(name, of: objectID)
        }
    }

    func committedSnapshotForChild(_ objectID: ManagedObjectID) throws -> StoreSnapshot? {
        try snapshotForChild(objectID)
    }
}

extension ManagedObjectContext {
    /// The objects this context holds with their values, for a store to leave their rows' values
    /// unread during one fetch. The store asks while the fetch runs, and this context's queue
    /// waits for it meanwhile, so the registration cannot change under the question.
    var knownRows: KnownRows {
        // unowned(unsafe): the store asks only during the fetch, which this context runs (and so
        // outlives); a checked reference cost a side-table retain and release per row.
        KnownRows { [unowned(unsafe) self] id in
            guard let object = registered[id] else { return false }
            return !object.isFault
        }
    }
}

extension Array {
    /// Moves the elements into a buffer of their own size and lets go of the larger one — moved,
    /// not copied, so no reference is retained: taken out from the end into a second array (in
    /// reverse order), then back into this one.
    mutating func moveToSmallerBuffer() {
        var reversed: [Element] = []
        reversed.reserveCapacity(count)
        while let element = popLast() { reversed.append(element) }
        self = []
        reserveCapacity(reversed.count)
        while let element = reversed.popLast() { append(element) }
    }
}
