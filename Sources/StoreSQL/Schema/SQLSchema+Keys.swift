import Foundation
import StoreCore

extension SQLSchema {
    /// IDs for new objects, one per object the runs count, in order. Keys come from each root
    /// entity's `Z_MAX` in `Z_PRIMARYKEY`, so sub-entities sharing a table never collide:
    /// `takeKeys(root, count)` moves the root's `Z_MAX` up by `count` inside the caller's write
    /// transaction and returns the new maximum. Roots are asked in entity-number order, so two
    /// savers lock `Z_PRIMARYKEY` rows in the same order. A run's keys are consecutive, so the
    /// list holds a few bytes per run.
    ///
    /// For example, runs Post ×1, Comment ×1, Post ×1 with both at `Z_MAX` 10 give Post 11,
    /// Comment 11, Post 12.
    package func newObjectIDs(
        for runs: [NewObjectRun], rows: RowReader, url: URL?, takeKeys: (_ root: Int64, _ count: Int) throws -> Int64
    ) throws -> CompactObjectIDList {
        // Each run's table and root, looked up once.
        var tables: [(number: Int64, root: Int64)] = []
        tables.reserveCapacity(runs.count)
        var countsByRoot: [Int64: Int] = [:]
        for run in runs {
            let table = try table(for: run.entity)
            let root = try self.table(for: table.rootName).number
            tables.append((table.number, root))
            countsByRoot[root, default: 0] += run.count
        }
        var nextKey: [Int64: Int64] = [:]
        for (root, count) in countsByRoot.sorted(by: { $0.key < $1.key }) where count > 0 {
            nextKey[root] = try takeKeys(root, count) - Int64(count) + 1
        }
        var ids = CompactObjectIDList.Builder()
        for (run, table) in zip(runs, tables) where run.count > 0 {
            let first = nextKey[table.root] ?? 1
            nextKey[table.root] = first + Int64(run.count)
            guard let prototype = rows.objectID(entityNumber: table.number, key: first) else {
                throw StoreError(.corrupt, url: url, "entity \(run.entity) has no number in this store")
            }
            for key in first..<first + Int64(run.count) { ids.append(key: key, sameEntityAndStoreAs: prototype) }
        }
        return ids.list
    }
}
