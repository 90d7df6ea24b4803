import Foundation
import StoreCore

extension SQLSchema {
    /// IDs for new objects, one per entity name, in order. Keys come from each root entity's
    /// `Z_MAX` in `Z_PRIMARYKEY`, so sub-entities sharing a table never collide: `takeKeys(root,
    /// count)` moves the root's `Z_MAX` up by `count` inside the caller's write transaction and
    /// returns the new maximum. Roots are asked in entity-number order, so two savers lock
    /// `Z_PRIMARYKEY` rows in the same order.
    ///
    /// For example, `["Post", "Comment", "Post"]` with both at `Z_MAX` 10 gives Post 11, Comment
    /// 11, Post 12.
    package func newObjectIDs(
        forEntityNames entityNames: [String], rows: RowReader, url: URL?, takeKeys: (_ root: Int64, _ count: Int) throws -> Int64
    ) throws -> [ManagedObjectID] {
        guard !entityNames.isEmpty else { return [] }
        // Names come in runs (a save's objects of one entity, rows of another): each run's table
        // and root are looked up once.
        var numbers: [Int64] = [], roots: [Int64] = []
        numbers.reserveCapacity(entityNames.count)
        roots.reserveCapacity(entityNames.count)
        var runName: String?
        var run: (number: Int64, root: Int64) = (0, 0)
        for name in entityNames {
            if name != runName {
                let table = try table(for: name)
                run = (table.number, try self.table(for: table.rootName).number)
                runName = name
            }
            numbers.append(run.number)
            roots.append(run.root)
        }
        var countsByRoot: [Int64: Int] = [:]
        for root in roots { countsByRoot[root, default: 0] += 1 }
        var nextKey: [Int64: Int64] = [:]
        for (root, count) in countsByRoot.sorted(by: { $0.key < $1.key }) {
            nextKey[root] = try takeKeys(root, count) - Int64(count) + 1
        }
        return try zip(zip(numbers, roots), entityNames).map { entity, name in
            let key = nextKey[entity.1] ?? 1
            nextKey[entity.1] = key + 1
            guard let id = rows.objectID(entityNumber: entity.0, key: key) else {
                throw StoreError(.corrupt, url: url, "entity \(name) has no number in this store")
            }
            return id
        }
    }
}
