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

extension ManagedObjectContext {
    /// The objects of positions `range` of a batched fetch's IDs, their values loaded: objects
    /// this context holds keep their values (a fault holding a fresh row of its own is loaded
    /// from it); the rest get the rows `readAhead` holds for them, or those of one request to
    /// the parent store, which (for batches read in order) also reads the rows of the next
    /// batches into `readAhead`. An object the store holds no row for, or whose request
    /// fails, is a fault: reading it asks the store again and reports why.
    func materializeBatch(_ range: Range<Int>, of list: CompactObjectIDList, batchSize: Int, readAhead: inout BatchReadAhead) -> [ManagedObject] {
        let ids = list.ids(in: range)
        // Rows read ahead for the whole batch: one walk finds, makes and loads every object.
        if let rows = readAheadRows(range, count: ids.count, of: list, batchSize: batchSize, readAhead: &readAhead) {
            return objects(ids, rows: rows, held: nil)
        }
        var held = [ManagedObject?](repeating: nil, count: ids.count)
        // The offsets (in `ids`) whose rows the store must give.
        var needed: [Int] = []
        for (offset, id) in ids.enumerated() {
            if let object = registered[id] {
                held[offset] = object
                guard object.isFault, !loadWaitingRow(of: object) else { continue }
            }
            needed.append(offset)
        }
        let rows: [StoreSnapshot?]?
        if needed.isEmpty {
            readAhead.noteLoaded(batchAt: range.lowerBound)
            rows = nil
        } else {
            rows = batchRows(range, ids: ids, needed: needed, of: list, batchSize: batchSize, readAhead: &readAhead)
        }
        return objects(ids, rows: rows, held: held)
    }

    /// The objects of `ids`, made loaded from `rows` (one per ID, `nil` where the store holds
    /// none) straight away, not as faults filled afterwards: with `held`, the objects of the
    /// IDs this context holds (found, and loaded from their own fresh rows, by the caller);
    /// without it, they are found here, and a fault among them is loaded from its own row
    /// while fresh, else from `rows`. The model's entity is looked up once per entity of the
    /// rows, not per row.
    private func objects(_ ids: [ManagedObjectID], rows: consuming [StoreSnapshot?]?, held: [ManagedObject?]?) -> [ManagedObject] {
        // Each row is moved out of the array into its object, not copied (see `takeRows`).
        var rows = rows ?? []
        var objects: [ManagedObject] = []
        objects.reserveCapacity(ids.count)
        let model = managedObjectModel
        var rowEntity: EntityDescription?
        var modelEntity: EntityDescription?
        for (offset, id) in ids.enumerated() {
            var row = offset < rows.count ? rows[offset].take() : nil
            if row?.objectID != id { row = nil }
            let found: ManagedObject?
            if let held { found = held[offset] } else { found = registered[id] }
            if let object = found {
                if object.isFault {
                    if held == nil, let snapshot = object.committedSnapshot, isFresh(object) {
                        object.load(snapshot)
                        object.awakeFromFetch()
                    } else if case .some(let snapshot) = consume row {
                        object.load(snapshot)
                        object.awakeFromFetch()
                    }
                }
                objects.append(object)
                continue
            }
            // Consumed, so that the row is moved into its object (`if let` would copy it).
            if case .some(let snapshot) = consume row {
                if snapshot.entity !== rowEntity {
                    rowEntity = snapshot.entity
                    modelEntity = model?.entitiesByName[id.entityName]
                }
                if let modelEntity {
                    objects.append(registeredObject(loading: snapshot, of: modelEntity, asFault: false))
                    continue
                }
            }
            if let object = registeredOrFaultObject(for: id) { objects.append(object) }
        }
        return objects
    }

    /// The rows of the batch at `range` (`count` positions) when they were read ahead and may
    /// still be used (``BatchReadAhead``): held, or read by the oldest read under way — then
    /// the next reads are started.
    private func readAheadRows(
        _ range: Range<Int>, count: Int, of list: CompactObjectIDList, batchSize: Int, readAhead: inout BatchReadAhead
    ) -> [StoreSnapshot?]? {
        guard let parent = try? parentStore() else { return nil }
        // The mark is read before the rows: a write while they are read moves it on.
        let mark = parent.readAheadMark.map { BatchReadAhead.Mark(parent: parent, value: $0) }
        if let rows = readAhead.takeRows(for: range, mark: mark, stalenessInterval: stalenessInterval) {
            readAhead.noteLoaded(batchAt: range.lowerBound)
            return rows
        }
        // A batch loaded before, again: its objects come from the context (or a read of their
        // own), and the reads under way are kept for the batches after.
        if readAhead.holdsTakenRows(of: range) { return nil }
        if let held = readAhead.finishReading(forBatchAt: range.lowerBound, mark: mark, stalenessInterval: stalenessInterval), held >= count,
            let rows = readAhead.takeRows(for: range.lowerBound..<(range.lowerBound + count), mark: mark, stalenessInterval: -1) {
            readAhead.noteLoaded(batchAt: range.lowerBound)
            startReadingNext(of: list, batchSize: batchSize, from: parent, mark: mark, readAhead: &readAhead)
            return rows
        }
        return nil
    }

    /// The rows of a batch not read ahead, one per offset in `ids` (`nil` where the store holds
    /// none; only the `needed` offsets are asked for when no batch is read ahead with it), or
    /// `nil` when the store could not answer.
    private func batchRows(
        _ range: Range<Int>, ids: [ManagedObjectID], needed: [Int], of list: CompactObjectIDList, batchSize: Int, readAhead: inout BatchReadAhead
    ) -> [StoreSnapshot?]? {
        // As `fulfillFaults`: a store that cannot answer leaves the objects faults.
        guard let parent = try? parentStore() else { return nil }
        // A batch loaded before from rows read ahead, which it took: its rows are read again on
        // their own, and the rows and reads under way are kept for the batches after.
        if readAhead.holdsTakenRows(of: range) {
            readAhead.noteLoaded(batchAt: range.lowerBound)
            return neededRows(needed, of: ids, from: parent)
        }
        // The mark is read before the rows: a write while they are read moves it on.
        let mark = parent.readAheadMark.map { BatchReadAhead.Mark(parent: parent, value: $0) }
        if let first = ids.first { readAhead.readsUnderWay = parent.readsUnderWay(for: first) }
        let end = Swift.min(range.lowerBound + readAhead.span(forBatchAt: range.lowerBound, batchSize: batchSize), list.count)
        readAhead.removeAll()
        guard mark != nil, stalenessInterval != 0, end > range.upperBound else { return neededRows(needed, of: ids, from: parent) }
        let window = ids + list.ids(in: range.upperBound..<end)
        guard let found = try? parent.snapshotsForChild(window) else { return nil }
        readAhead.keep(BatchReadAhead.place(found, at: window), from: range.lowerBound, mark: mark)
        startReadingNext(of: list, batchSize: batchSize, from: parent, mark: mark, readAhead: &readAhead)
        return readAhead.takeRows(for: range.lowerBound..<(range.lowerBound + ids.count), mark: mark, stalenessInterval: -1)
    }

    /// The rows of the `needed` offsets of `ids`, read from `parent` (`nil` elsewhere, and where
    /// the store holds none), or `nil` when the store could not answer.
    private func neededRows(_ needed: [Int], of ids: [ManagedObjectID], from parent: any ObjectStoreParent) -> [StoreSnapshot?]? {
        let asked = needed.map { ids[$0] }
        guard let found = try? parent.snapshotsForChild(asked) else { return nil }
        var rows = [StoreSnapshot?](repeating: nil, count: ids.count)
        for (offset, row) in zip(needed, BatchReadAhead.place(found, at: asked)) { rows[offset] = row }
        return rows
    }

    /// Once batches are read as many at a time as they may be, starts reading the next ones
    /// (when the parent can: ``SnapshotReadingAhead``) until ``BatchReadAhead/readsUnderWay``
    /// reads are under way, so they are read while the caller works on these.
    private func startReadingNext(
        of list: CompactObjectIDList, batchSize: Int, from parent: any ObjectStoreParent, mark: BatchReadAhead.Mark?, readAhead: inout BatchReadAhead
    ) {
        guard readAhead.readsFullSpan(batchSize: batchSize) else { return }
        while readAhead.mayStartReading {
            let next = readAhead.nextSpan(batchSize: batchSize).clamped(to: 0..<list.count)
            // The mark is read before the read starts: a write while it runs moves it on.
            guard !next.isEmpty, let current = parent.readAheadMark, current == mark?.value else { return }
            let ids = list.ids(in: next)
            guard let pending = parent.startSnapshotsForChild(ids) else { return }
            readAhead.startedReading(pending, count: ids.count, from: next.lowerBound, mark: BatchReadAhead.Mark(parent: parent, value: current))
        }
    }
}
