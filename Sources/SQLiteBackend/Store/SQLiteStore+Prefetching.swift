import Foundation
import StoreCore
import StoreSQL

extension SQLiteStore {
    /// The shared prefetcher reading through `connection` (inside the fetch's read transaction).
    func prefetcher(on connection: SQLiteConnection) -> Prefetcher {
        Prefetcher(
            schema: schema, rows: rows, cache: prefetched,
            members: { storage, layout, owners in
                let ownerPosition = layout.selectList.count
                var found: [(member: StoreSnapshot, owner: Int64)] = []
                try connection.query(self.membersQuery(storage, owners: "json", memberColumns: layout.selectList), [.text(Self.jsonArray(owners))]) { row in
                    if let snapshot = try self.rows.snapshot(from: row, layout: layout, external: self.externalStorage) {
                        found.append((snapshot, row.int64(at: ownerPosition)))
                    }
                }
                return found
            },
            rowsByKey: { root, keys in
                var found: [StoreSnapshot] = []
                try self.forEachSnapshot(ofRoot: root, keys: keys, on: connection) { found.append($0) }
                return found
            })
    }
}
