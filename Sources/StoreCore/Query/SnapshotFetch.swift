/// A fetch evaluated in memory over tables of snapshots — the atomic stores' graph: the
/// predicate compiled once per entity into closures over property indexes
/// (``CompiledPredicate``), sort keys read by index (``CompiledSortKeys``), dictionary results
/// grouped and aggregated in one pass (``DictionaryFetch``), then offset and limit.
///
/// Rows are read in place through ``SnapshotSlot``s; only the snapshots returned are copied.
///
/// For example:
///
/// ```swift
/// let fetch = SnapshotFetch(request: request, entity: quake, model: model, resolve: { graph[$0] })
/// let result = try fetch.run(over: [quakeRows, aftershockRows])
/// ```
package struct SnapshotFetch {
    let request: StoreFetchRequest
    /// The fetched entity (its sub-entities' rows may be among the tables).
    let entity: EntityDescription
    let model: ManagedObjectModel
    /// Finds the snapshot of a related object, for key paths through relationships.
    let resolve: (ManagedObjectID) throws -> StoreSnapshot?

    package init(
        request: StoreFetchRequest, entity: EntityDescription, model: ManagedObjectModel,
        resolve: @escaping (ManagedObjectID) throws -> StoreSnapshot?
    ) {
        self.request = request
        self.entity = entity
        self.model = model
        self.resolve = resolve
    }

    /// The result of the request over `tables` (rows of the entity and of the sub-entities
    /// fetched, `nil` for deleted rows), table by table in order.
    package func run(over tables: [[StoreSnapshot?]]) throws -> StoreFetchResult {
        try Self.withBuffers(tables[...], []) { buffers in try run(over: buffers) }
    }

    /// Opens every table's buffer, so slots into all of them stay valid during `body`.
    private static func withBuffers<Result>(
        _ tables: ArraySlice<[StoreSnapshot?]>, _ opened: [UnsafeBufferPointer<StoreSnapshot?>],
        _ body: ([UnsafeBufferPointer<StoreSnapshot?>]) throws -> Result
    ) throws -> Result {
        guard let first = tables.first else { return try body(opened) }
        return try first.withUnsafeBufferPointer { buffer in
            try withBuffers(tables.dropFirst(), opened + [buffer], body)
        }
    }

    private func run(over tables: [UnsafeBufferPointer<StoreSnapshot?>]) throws -> StoreFetchResult {
        let model = self.model, resolve = self.resolve
        let byName: (SnapshotSlot) -> any PredicateEvaluationSource = { slot in
            guard let snapshot = slot.snapshot else { return VanishedRowSource() }
            return SnapshotSource(snapshot: snapshot, model: model, resolve: resolve)
        }
        var predicate = request.predicate.map { CompiledPredicate<SnapshotSlot>($0, fallbackSource: byName) }
        if request.resultType == .count && request.sortDescriptors.isEmpty {
            var total = 0
            try forEachMatch(in: tables, of: &predicate) { _ in total += 1 }
            return .count(max(0, min(request.fetchLimit > 0 ? request.fetchLimit : .max, total - request.fetchOffset)))
        }
        var matches: [SnapshotSlot] = []
        if request.sortDescriptors.isEmpty {
            try forEachMatch(in: tables, of: &predicate) { matches.append($0) }
        } else {
            // Each match's keys are read as it matches, while its row is still in the cache.
            var sortKeys = CompiledSortKeys<SnapshotSlot>(request.sortDescriptors, fallbackSource: byName)
            var keys: [StoreValue] = []
            try forEachMatch(in: tables, of: &predicate) { slot in
                matches.append(slot)
                try sortKeys.appendKeys(of: slot, to: &keys)
            }
            matches = SortComparator(request.sortDescriptors).sort(matches, flatKeys: keys)
        }
        if request.resultType == .dictionary {
            return .dictionaries(try DictionaryFetch(request: request, entity: entity).rows(from: matches, fallbackSource: byName))
        }
        if request.fetchOffset > 0 { matches = Array(matches.dropFirst(request.fetchOffset)) }
        if request.fetchLimit > 0 { matches = Array(matches.prefix(request.fetchLimit)) }
        switch request.resultType {
        case .count: return .count(matches.count)
        case .managedObjectID: return .objectIDs(matches.compactMap(\.objectID))
        case .managedObject, .dictionary: return .snapshots(matches.compactMap(\.snapshot))
        }
    }

    /// Calls `body` with the slot of each live row satisfying `predicate` (every live row when
    /// there is none), taking the predicate's test for a row's entity only when it changes.
    private func forEachMatch(
        in tables: [UnsafeBufferPointer<StoreSnapshot?>], of predicate: inout CompiledPredicate<SnapshotSlot>?,
        _ body: (SnapshotSlot) throws -> Void
    ) throws {
        for buffer in tables {
            var entity: ObjectIdentifier?
            var test: CompiledPredicate<SnapshotSlot>.Test = { _ in true }
            for position in buffer.indices {
                guard let slot = SnapshotSlot(buffer, position) else { continue }
                if predicate != nil {
                    let rowEntity = slot.entityIdentity
                    if rowEntity != entity {
                        test = predicate?.test(for: slot.indexedEntity) ?? { _ in true }
                        entity = rowEntity
                    }
                    guard try test(slot) else { continue }
                }
                try body(slot)
            }
        }
    }
}
