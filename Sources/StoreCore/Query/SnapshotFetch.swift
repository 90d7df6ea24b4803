/// A fetch evaluated in memory over tables of snapshots — the atomic stores' graph: the
/// predicate compiled once per entity into closures over property indexes
/// (``CompiledPredicate``), sort keys read by index (``CompiledSortKeys``), dictionary results
/// grouped and aggregated in one pass (``DictionaryFetch``), then offset and limit.
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
        let model = self.model, resolve = self.resolve
        let bySnapshotName: (StoreSnapshot) -> any PredicateEvaluationSource = {
            SnapshotSource(snapshot: $0, model: model, resolve: resolve)
        }
        if request.resultType == .count && request.sortDescriptors.isEmpty {
            let total = try count(in: tables, bySnapshotName)
            return .count(max(0, min(request.fetchLimit > 0 ? request.fetchLimit : .max, total - request.fetchOffset)))
        }
        var matches = try filter(tables, bySnapshotName)
        if !request.sortDescriptors.isEmpty {
            var sortKeys = CompiledSortKeys<StoreSnapshot>(request.sortDescriptors, fallbackSource: bySnapshotName)
            var keys: [StoreValue] = []
            keys.reserveCapacity(matches.count * request.sortDescriptors.count)
            for snapshot in matches { try sortKeys.appendKeys(of: snapshot, to: &keys) }
            matches = SortComparator(request.sortDescriptors).sort(matches, flatKeys: keys)
        }
        if request.resultType == .dictionary {
            return .dictionaries(try DictionaryFetch(request: request, entity: entity).rows(from: matches, fallbackSource: bySnapshotName))
        }
        if request.fetchOffset > 0 { matches = Array(matches.dropFirst(request.fetchOffset)) }
        if request.fetchLimit > 0 { matches = Array(matches.prefix(request.fetchLimit)) }
        switch request.resultType {
        case .count: return .count(matches.count)
        case .managedObjectID: return .objectIDs(matches.map(\.objectID))
        case .managedObject, .dictionary: return .snapshots(matches)
        }
    }

    /// The rows that satisfy the predicate (every row when there is none), in table order.
    private func filter(
        _ tables: [[StoreSnapshot?]], _ bySnapshotName: @escaping (StoreSnapshot) -> any PredicateEvaluationSource
    ) throws -> [StoreSnapshot] {
        var matches: [StoreSnapshot] = []
        guard let predicate = request.predicate else {
            for rows in tables { for case let row? in rows { matches.append(row) } }
            return matches
        }
        var compiled = CompiledPredicate<StoreSnapshot>(predicate, fallbackSource: bySnapshotName)
        for rows in tables {
            for case let row? in rows where try compiled.evaluate(row) { matches.append(row) }
        }
        return matches
    }

    /// How many rows satisfy the predicate, without collecting them.
    private func count(
        in tables: [[StoreSnapshot?]], _ bySnapshotName: @escaping (StoreSnapshot) -> any PredicateEvaluationSource
    ) throws -> Int {
        var total = 0
        guard let predicate = request.predicate else {
            for rows in tables { for case .some in rows { total += 1 } }
            return total
        }
        var compiled = CompiledPredicate<StoreSnapshot>(predicate, fallbackSource: bySnapshotName)
        for rows in tables {
            for case let row? in rows where try compiled.evaluate(row) { total += 1 }
        }
        return total
    }
}
