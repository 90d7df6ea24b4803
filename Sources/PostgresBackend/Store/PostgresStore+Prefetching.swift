import Foundation
import StoreCore

extension PostgresStore {
    /// Loads the objects at the end of `keyPath` (`"comments"`, `"comments.author"`) for
    /// `snapshots`, one query per step of the path not already loaded by an earlier path of the
    /// same fetch (`loaded`). To-many lists are recorded in the owners' snapshots; the related
    /// objects' snapshots are handed to their faults when those fire.
    func prefetch(
        _ keyPath: String, for snapshots: inout [StoreSnapshot], entityName: String,
        loaded: inout [String: (entity: String, level: [StoreSnapshot])], on connection: ServerConnection
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
                let ownerPosition = layout.selectList.count
                var members: [Int64: [ManagedObjectID]] = [:]
                let keys = level.compactMap(\.objectID.primaryKey)
                for row in try connection.query(membersQuery(storage, memberColumns: layout.selectList), [Self.keyArray(keys)]) {
                    guard let snapshot = rows.snapshot(from: row, layout: layout) else { continue }
                    members[row.int64(at: ownerPosition), default: []].append(snapshot.objectID)
                    if seen.insert(snapshot.objectID).inserted { next.append(snapshot) }
                }
                for index in level.indices {
                    level[index].setToMany(level[index].objectID.primaryKey.flatMap { members[$0] } ?? [], forKey: component)
                }
                entity = storage.destination
            } else if let column = table.column(for: component), case .toOne(let destination, _) = column.kind {
                var keys: Set<Int64> = []
                for snapshot in level {
                    if case .objectID(let target) = snapshot[component], let key = target.primaryKey { keys.insert(key) }
                }
                for snapshot in try self.snapshots(ofRoot: try schema.table(for: destination).rootName, keys: Array(keys), on: connection)
                where seen.insert(snapshot.objectID).inserted {
                    next.append(snapshot)
                }
                entity = destination
            } else {
                throw FetchError(.invalidKeyPath, "cannot prefetch \(keyPath): \(entity) has no relationship \(component)")
            }
            if isFirstLevel { snapshots = level } else { handOut(level) }
            loaded[path] = (entity, next)
            level = next
            isFirstLevel = false
        }
        if !isFirstLevel { handOut(level) }
    }

    private func handOut(_ snapshots: [StoreSnapshot]) {
        prefetched.withLock { cache in
            if cache.count + snapshots.count > 200_000 { cache.removeAll() }
            for snapshot in snapshots { cache[snapshot.objectID] = snapshot }
        }
    }
}
