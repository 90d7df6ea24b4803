#if Postgres  // the PostgreSQL store is built only with the Postgres package trait (Package.swift)
import Foundation
import StoreCore
import StoreSQL

extension PostgresStore {
    /// The shared prefetcher reading through `connection` (inside the fetch's read transaction).
    func prefetcher(on connection: ServerConnection) -> Prefetcher {
        let rows = rows
        return Prefetcher(
            schema: schema, rows: rows, cache: prefetched,
            members: { storage, layout, owners in
                let ownerPosition = layout.selectList.count
                return try connection.collect(self.membersQuery(storage, memberColumns: layout.selectList), [Self.keyArray(owners)]) { row in
                    rows.snapshot(from: row, layout: layout).map { ($0, row.int64(at: ownerPosition)) }
                }
            },
            rowsByKey: { root, keys in try self.snapshots(ofRoot: root, keys: keys, on: connection) })
    }
}
#endif
