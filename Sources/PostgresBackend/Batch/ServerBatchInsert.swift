import Foundation
import StoreCore
import StoreSQL

/// Writes a batch insert: rows are read one at a time from the request and sent up to a thousand
/// per `INSERT` (never all in memory); keys come from the root entity's `Z_MAX`, locked for the
/// transaction and moved once at the end. On an entity with uniqueness constraints, a row that
/// meets a stored one updates it (`ON CONFLICT (…) DO UPDATE … RETURNING Z_PK`) or leaves it
/// (`DO NOTHING`), one row per statement — or, under the error policy, fails the request.
///
/// PostgreSQL takes one conflict target per statement: an upsert updates through the entity's
/// first uniqueness constraint, and a row breaking another one fails the request.
struct ServerBatchInsert {
    let store: PostgresStore
    let connection: ServerConnection
    let history: Int64?
    let wantsObjectIDs: Bool

    func write(_ insert: StoreBatchRequest.Insert) throws -> StoreBatchResult {
        let schema = store.schema
        let table = try schema.table(for: insert.entityName)
        let root = try schema.table(for: table.rootName).number
        guard case .integer(let maximum)? = try connection.scalar("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = $1 FOR UPDATE", [.integer(root)]) else {
            throw StoreError(.corrupt, url: store.url, "Z_PRIMARYKEY has no row for entity number \(root)")
        }
        let columns = try insert.attributes.map { attribute -> Column in
            guard let column = table.column(for: attribute.name) else {
                throw StoreError(.corrupt, url: store.url, "entity \(table.name) has no column for \(attribute.name)")
            }
            return column
        }
        let constraints = table.uniquenessConstraintColumns(entityName: insert.entityName, model: store.model)
        let upserting = insert.onConflict != .fail && !constraints.isEmpty
        let rowsPerStatement = upserting ? 1 : max(1, min(1000, 65_000 / (columns.count + 1)))
        var result = StoreBatchResult()
        var key = maximum
        var rowNumber = 0
        var pending: [SQLValue] = []
        var pendingRows = 0

        func flush() throws {
            guard pendingRows > 0 else { return }
            var sql = Self.insertSQL(table, columns: columns, rows: pendingRows)
            if upserting, let target = constraints.first {
                sql += insert.onConflict == .updateStoredObject
                    ? " ON CONFLICT (\(target.joined(separator: ", "))) DO UPDATE SET "
                        + (columns.map { "\($0.name) = EXCLUDED.\($0.name)" } + ["Z_OPT = \(table.table).Z_OPT + 1"]).joined(separator: ", ")
                    : " ON CONFLICT DO NOTHING"
                sql += " RETURNING Z_PK"
            }
            defer { pending.removeAll(keepingCapacity: true); pendingRows = 0 }
            do {
                if upserting {
                    let insertedKey = pending[0]
                    guard let stored = try connection.query(sql, pending).first?.int64(at: 0) else { return }  // DO NOTHING
                    result.count += 1
                    if .integer(stored) != insertedKey {
                        try record(.update, key: stored, columns: insert.attributes.map(\.name))
                        if wantsObjectIDs, let id = store.rows.objectID(entityNumber: table.number, key: stored) { result.updated.append(id) }
                    } else {
                        try record(.insert, key: stored, columns: nil)
                        if wantsObjectIDs, let id = store.rows.objectID(entityNumber: table.number, key: stored) { result.inserted.append(id) }
                    }
                } else {
                    try connection.run(sql, pending)
                }
            } catch let error as PostgresError where error.isUniqueViolation {
                throw ObjectValidationError(
                    .uniquenessConstraint, entity: table.name, key: constraints.first.map { $0.joined(separator: ",") },
                    "row \(rowNumber) (or one of the \(rowsPerStatement) before it) of the batch insert into \(table.name) has the same uniquely constrained values as a stored object or an earlier row; nothing was written")
            }
        }

        func record(_ type: PersistentHistoryChange.ChangeType, key: Int64, columns: [String]?) throws {
            guard let history else { return }
            try connection.run(
                "INSERT INTO \(HistoryTables.changes) (ZTRANSACTION, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZCOLUMNS) VALUES ($1, $2, $3, $4, $5)",
                [.integer(history), .integer(Int64(type.rawValue)), .integer(table.number), .integer(key), columns.map { .text($0.joined(separator: ",")) } ?? .null])
        }

        while let row = try insert.nextRow() {
            rowNumber += 1
            key += 1
            pending.append(.integer(key))
            for value in row { pending.append(PostgresDialect.encode(value)) }
            pendingRows += 1
            if !upserting {
                result.count += 1
                if wantsObjectIDs, let id = store.rows.objectID(entityNumber: table.number, key: key) { result.inserted.append(id) }
            }
            if pendingRows == rowsPerStatement { try flush() }
        }
        try flush()
        if key > maximum {
            try connection.run("UPDATE Z_PRIMARYKEY SET Z_MAX = $1 WHERE Z_ENT = $2", [.integer(key), .integer(root)])
        }
        if let history, !upserting, key > maximum {
            try connection.run(
                """
                INSERT INTO \(HistoryTables.changes) (ZTRANSACTION, ZCHANGETYPE, ZENTITY, ZENTITYPK) \
                SELECT $1, \(PersistentHistoryChange.ChangeType.insert.rawValue), Z_ENT, Z_PK FROM \(table.table) WHERE Z_PK BETWEEN $2 AND $3 ORDER BY Z_PK
                """, [.integer(history), .integer(maximum + 1), .integer(key)])
        }
        return result
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
