#if Postgres  // the PostgreSQL store is built only with the Postgres package trait (Package.swift)
import Foundation
import StoreCore
import StoreSQL

/// Writes a batch insert: rows are read one at a time from the request and streamed to the server
/// with `COPY … FROM STDIN` (never all in memory); keys come from the root entity's `Z_MAX`,
/// locked for the transaction and moved once at the end. On an entity with uniqueness
/// constraints, a row that meets a stored one updates it (`ON CONFLICT (…) DO UPDATE … RETURNING
/// Z_PK`) or leaves it (`DO NOTHING`), one row per `INSERT` — or, under the error policy, fails
/// the request.
///
/// PostgreSQL takes one conflict target per statement: an upsert updates through the entity's
/// first uniqueness constraint, and a row breaking another one fails the request.
struct PostgresBatchInsert {
    let store: PostgresStore
    let connection: PostgresSession
    var history: SQLHistoryWriter<PostgresStore>?
    let wantsObjectIDs: Bool

    mutating func write(_ insert: StoreBatchRequest.Insert) throws -> StoreBatchResult {
        let target = try SQLBatchInsertTarget(insert, store: store, on: connection)
        let (table, root, maximum, columns, constraints) = (target.table, target.root, target.maximum, target.columns, target.constraints)
        var result = StoreBatchResult()
        let lastKey: Int64
        if insert.onConflict != .fail, let target = constraints.first {
            lastKey = try upsert(insert, into: table, columns: columns, target: target, after: maximum, result: &result)
        } else {
            lastKey = try copy(insert, into: table, columns: columns, after: maximum, result: &result)
            if lastKey > maximum { try history?.recordInsertions(into: table, keys: maximum + 1, through: lastKey) }
        }
        if lastKey > maximum {
            try connection.run("UPDATE Z_PRIMARYKEY SET Z_MAX = $1 WHERE Z_ENT = $2", [.integer(lastKey), .integer(root)])
        }
        return result
    }

    /// One `INSERT … ON CONFLICT (target) DO UPDATE … / DO NOTHING RETURNING Z_PK` per row, new
    /// rows numbered from `maximum + 1`; returns the last key given out.
    private mutating func upsert(
        _ insert: StoreBatchRequest.Insert, into table: EntityTable, columns: [Column], target: [String], after maximum: Int64,
        result: inout StoreBatchResult
    ) throws -> Int64 {
        var sql = Self.insertSQL(table, columns: columns, rows: 1)
        sql += insert.onConflict == .updateStoredObject
            ? " ON CONFLICT (\(target.joined(separator: ", "))) DO UPDATE SET "
                + (columns.map { "\($0.name) = EXCLUDED.\($0.name)" } + ["Z_OPT = \(table.table).Z_OPT + 1"]).joined(separator: ", ")
            : " ON CONFLICT DO NOTHING"
        sql += " RETURNING Z_PK"
        var key = maximum
        var rowNumber = 0
        while let row = try insert.nextRow() {
            rowNumber += 1
            key += 1
            let stored: Int64?
            do {
                stored = try connection.query(sql, [.integer(key)] + row.map(PostgresDialect.encode)).first?.int64(at: 0)
            } catch let error as PostgresServerError where error.isUniqueViolation {
                throw ObjectValidationError(
                    .uniquenessConstraint, entity: table.name, key: target.joined(separator: ","),
                    "row \(rowNumber) of the batch insert into \(table.name) breaks a uniqueness constraint other than the one upserts go through (\(target.joined(separator: ", "))); nothing was written")
            }
            guard let stored else { continue }  // DO NOTHING: the stored object stays as it was
            result.count += 1
            let isNew = stored == key
            try record(isNew ? .insert : .update, key: stored, columns: isNew ? nil : insert.attributes.map(\.name), table: table)
            if wantsObjectIDs, let id = store.rows.objectID(entityNumber: table.number, key: stored) {
                if isNew { result.inserted.append(id) } else { result.updated.append(id) }
            }
        }
        return key
    }

    private mutating func record(_ type: PersistentHistoryChange.ChangeType, key: Int64, columns: [String]?, table: EntityTable) throws {
        try history?.record(type, entityNumber: table.number, key: key, columns: columns)
    }

    /// Streams every row with `COPY`, numbering them from `maximum + 1`; returns the last key.
    private func copy(
        _ insert: StoreBatchRequest.Insert, into table: EntityTable, columns: [Column], after maximum: Int64,
        result: inout StoreBatchResult
    ) throws -> Int64 {
        let names = ["Z_PK", "Z_ENT", "Z_OPT"] + columns.map(\.name)
        let state = CopyState(key: maximum, ids: wantsObjectIDs ? [] : nil)
        let prefix = [SQLValue.integer(table.number), .integer(1)]
        let rows = store.rows
        do {
            try connection.copy(into: table.table, columns: names) { buffer in
                guard let row = try insert.nextRow() else { return false }
                state.key += 1
                state.count += 1
                PostgresSession.copyRow([.integer(state.key)] + prefix + row.map(PostgresDialect.encode), into: &buffer)
                if state.ids != nil, let id = rows.objectID(entityNumber: table.number, key: state.key) { state.ids?.append(id) }
                return true
            }
        } catch let error as PostgresServerError where error.isUniqueViolation {
            throw ObjectValidationError(
                .uniquenessConstraint, entity: table.name, key: table.uniquenessConstraintColumns(entityName: insert.entityName, model: store.model).first?.joined(separator: ","),
                "a row of the batch insert into \(table.name) has the same uniquely constrained values as a stored object or an earlier row; nothing was written (\(error.message))")
        }
        result.count = state.count
        result.inserted = state.ids ?? []
        return state.key
    }

    /// What the rows streamed so far gave: the last key, the count, the IDs when wanted.
    private final class CopyState {
        var key: Int64
        var count = 0
        var ids: [ManagedObjectID]?
        init(key: Int64, ids: [ManagedObjectID]?) {
            self.key = key
            self.ids = ids
        }
    }

    /// `INSERT INTO t (Z_PK, Z_ENT, Z_OPT, <columns>) VALUES ($1, n, 1, $2…), …` for `rows` rows.
    static func insertSQL(_ table: EntityTable, columns: [Column], rows: Int) -> String {
        let width = columns.count + 1
        var tuples: [String] = []
        tuples.reserveCapacity(rows)
        for row in 0..<rows {
            let base = row * width
            var values = ["$\(base + 1)", String(table.number), "1"]
            for (offset, column) in columns.enumerated() {
                values.append("$\(base + offset + 2)" + (column.declaredType == "DECIMAL" ? "::NUMERIC" : ""))
            }
            tuples.append("(" + values.joined(separator: ", ") + ")")
        }
        return "INSERT INTO \(table.table) (Z_PK, Z_ENT, Z_OPT\(columns.map { ", " + $0.name }.joined())) VALUES " + tuples.joined(separator: ", ")
    }
}
#endif
