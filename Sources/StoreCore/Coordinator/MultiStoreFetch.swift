/// A fetch over several stores that hold the same entity: each store is asked without limit
/// or offset, the results are merged and sorted, then the offset and limit are applied.
struct MultiStoreFetch {
    let request: StoreFetchRequest
    let stores: [any StoreReading]
    let model: ManagedObjectModel

    func run() throws -> StoreFetchResult {
        var perStore = request
        perStore.fetchLimit = 0
        perStore.fetchOffset = 0
        if request.resultType == .count {
            perStore.resultType = .count
            var total = 0
            for store in stores {
                if case .count(let n) = try store.execute(perStore) { total += n }
            }
            return .count(total)
        }
        perStore.resultType = .managedObject
        perStore.propertiesToFetch = nil
        perStore.propertiesToGroupBy = nil
        perStore.havingPredicate = nil
        perStore.returnsDistinctResults = false
        var snapshots: [StoreSnapshot] = []
        for store in stores {
            switch try store.execute(perStore) {
            case .snapshots(let found): snapshots += found
            case .objectIDs(let ids): snapshots += try ids.compactMap { try store.snapshot(for: $0) }
            default: break
            }
        }
        let stores = self.stores
        let resolve: (ManagedObjectID) throws -> StoreSnapshot? = { id in
            try stores.first { $0.identifier == id.storeIdentifier }?.snapshot(for: id)
        }
        let comparator = SortComparator(request.sortDescriptors)
        let keys = try snapshots.map { try comparator.keys(for: SnapshotSource(snapshot: $0, model: model, resolve: resolve)) }
        var sorted = comparator.sort(snapshots, keys: keys)
        if request.resultType == .dictionary {
            let entity = try model.entity(named: request.entityName)
            let sources = sorted.map { SnapshotSource(snapshot: $0, model: model, resolve: resolve) }
            return .dictionaries(try DictionaryFetch(request: request, entity: entity).rows(from: sources))
        }
        if request.fetchOffset > 0 { sorted = Array(sorted.dropFirst(request.fetchOffset)) }
        if request.fetchLimit > 0 { sorted = Array(sorted.prefix(request.fetchLimit)) }
        switch request.resultType {
        case .managedObjectID: return .objectIDs(sorted.map(\.objectID))
        default: return .snapshots(sorted)
        }
    }
}
