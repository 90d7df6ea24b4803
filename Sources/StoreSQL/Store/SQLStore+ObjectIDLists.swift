import Foundation
import StoreCore

/// Object-ID fetches read into compact lists, for every SQL store (``ObjectIDListFetching``).
extension SQLStore {
    /// The IDs `request` matches, each row's `Z_PK` and `Z_ENT` appended to a compact list as
    /// the row is read: no `ManagedObjectID` per row, no array of them.
    ///
    /// For example:
    ///
    /// ```swift
    /// let ids = try store.objectIDList(StoreFetchRequest(entityName: "Post", resultType: .managedObjectID))
    /// ```
    package func objectIDList(_ request: StoreFetchRequest) throws -> CompactObjectIDList {
        let query = try compiler.selectObjects(request, columns: ["t0.Z_PK", "t0.Z_ENT"])
        let collector = ObjectIDListCollector(rows: rows)
        try read { connection in
            _ = try connection.collect(query.sql, query.bindings) { row -> Bool? in
                collector.add(key: row.int64(at: 0), entityNumber: row.int64(at: 1))
                return nil
            }
        }
        return collector.builder.list
    }
}

/// Appends the IDs of a query's rows to a compact list as the driver reads them.
private final class ObjectIDListCollector: @unchecked Sendable {
    // @unchecked: only the query's row callback changes it — one row at a time, while the caller
    // waits for the query (a driver may call it on its own thread) — and the caller reads the
    // list only after the query ended.
    private let rows: RowReader
    private(set) var builder = CompactObjectIDList.Builder()
    private var lastNumber: Int64?
    private var lastPrototype: ManagedObjectID?

    init(rows: RowReader) { self.rows = rows }

    /// Appends the ID of row `key` of entity `number` (a row of an entity the model does not
    /// know is passed over, as ``RowReader/objectID(from:)`` passes it over).
    func add(key: Int64, entityNumber number: Int64) {
        if number != lastNumber {
            // Any key makes an ID that shares the entity-and-store part of every ID of the entity.
            lastPrototype = rows.objectID(entityNumber: number, key: key)
            lastNumber = number
        }
        guard let prototype = lastPrototype else { return }
        builder.append(key: key, sameEntityAndStoreAs: prototype)
    }
}
