import Foundation
import StoreCore
#if !STOWAGE_SANITIZER_LOCKS  // the ThreadSanitizer build (.ci/run) uses StoreCore's sanitizer-visible Mutex
import Synchronization
#endif

/// Loads the objects at the end of relationship key paths for a fetch's snapshots
/// (`relationshipKeyPathsForPrefetching`), one query per step of a path, for any SQL store: the
/// store says how to read a to-many relationship's members of many owners and rows by key, and
/// where the loaded snapshots wait for their faults (``PrefetchCache``).
///
/// For example, `["comments", "comments.author"]` on posts runs two queries: every comment of the
/// posts (their lists recorded in the posts' snapshots), then every author of those comments.
package struct Prefetcher {
    package typealias Members = (_ storage: ToManyStorage, _ layout: RowReader.Layout, _ ownerKeys: [Int64]) throws -> [(member: StoreSnapshot, owner: Int64)]
    package typealias Rows = (_ root: String, _ keys: [Int64]) throws -> [StoreSnapshot]

    let schema: SQLSchema
    let rows: RowReader
    let cache: PrefetchCache
    /// The members (with their owner's key) of a to-many relationship of the owners with these keys.
    let members: Members
    /// The rows of root entity `root`'s table with these keys.
    let rowsByKey: Rows

    package init(schema: SQLSchema, rows: RowReader, cache: PrefetchCache, members: @escaping Members, rowsByKey: @escaping Rows) {
        self.schema = schema
        self.rows = rows
        self.cache = cache
        self.members = members
        self.rowsByKey = rowsByKey
    }

    /// Prefetches every key path of `keyPaths` for `snapshots` of `entityName`.
    package func prefetch(_ keyPaths: [String], for snapshots: inout [StoreSnapshot], entityName: String) throws {
        var loaded: [String: (entity: String, level: [StoreSnapshot])] = [:]
        for keyPath in keyPaths.sorted() {
            try prefetch(keyPath, for: &snapshots, entityName: entityName, loaded: &loaded)
        }
    }

    /// One key path (`"comments"`, `"comments.author"`), skipping the steps an earlier path of
    /// the same fetch loaded (`loaded`). To-many lists are recorded in the owners' snapshots; the
    /// related objects' snapshots go to the cache for their faults.
    private func prefetch(
        _ keyPath: String, for snapshots: inout [StoreSnapshot], entityName: String, loaded: inout [String: (entity: String, level: [StoreSnapshot])]
    ) throws {
        var level = snapshots
        var isFirstLevel = true
        var entity = entityName
        var path = ""
        for component in keyPath.split(separator: ".").map(String.init) {
            path += (path.isEmpty ? "" : ".") + component
            if let done = loaded[path] {
                (entity, level) = done
                isFirstLevel = false
                continue
            }
            let table = try schema.table(for: entity)
            var next: [StoreSnapshot] = []
            var seen: Set<ManagedObjectID> = []
            if let storage = table.toMany[component] {
                let layout = try rows.layout(for: storage.destination)
                var lists: [Int64: [ManagedObjectID]] = [:]
                for (member, owner) in try members(storage, layout, level.compactMap(\.objectID.primaryKey)) {
                    lists[owner, default: []].append(member.objectID)
                    if seen.insert(member.objectID).inserted { next.append(member) }
                }
                for index in level.indices {
                    level[index].setToMany(level[index].objectID.primaryKey.flatMap { lists[$0] } ?? [], forKey: component)
                }
                entity = storage.destination
            } else if let column = table.column(for: component), case .toOne(let destination, _) = column.kind {
                var keys: Set<Int64> = []
                for snapshot in level {
                    if case .objectID(let target) = snapshot[component], let key = target.primaryKey { keys.insert(key) }
                }
                for snapshot in try rowsByKey(try schema.table(for: destination).rootName, Array(keys)) where seen.insert(snapshot.objectID).inserted {
                    next.append(snapshot)
                }
                entity = destination
            } else {
                throw FetchError(.invalidKeyPath, "cannot prefetch \(keyPath): \(entity) has no relationship \(component)")
            }
            if isFirstLevel { snapshots = level } else { cache.handOut(level) }
            loaded[path] = (entity, next)
            level = next
            isFirstLevel = false
        }
        if !isFirstLevel { cache.handOut(level) }
    }
}

/// Snapshots loaded by prefetching, each handed once to the fault that asks for it; bounded (a
/// cache past 200,000 snapshots starts over), emptied by batch requests.
package final class PrefetchCache: Sendable {
    private let snapshots = Mutex<[ManagedObjectID: StoreSnapshot]>([:])

    package init() {}

    package func handOut(_ loaded: [StoreSnapshot]) {
        snapshots.withLock { cache in
            if cache.count + loaded.count > 200_000 { cache.removeAll() }
            for snapshot in loaded { cache[snapshot.objectID] = snapshot }
        }
    }

    /// The prefetched snapshot of an object, removed from the cache.
    package func take(_ objectID: ManagedObjectID) -> StoreSnapshot? {
        snapshots.withLock { $0.removeValue(forKey: objectID) }
    }

    package func removeAll() {
        snapshots.withLock { $0.removeAll() }
    }
}
