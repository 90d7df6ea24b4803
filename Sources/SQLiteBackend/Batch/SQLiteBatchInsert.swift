import Foundation
import StoreCore
import StoreSQL

/// Writes a batch insert through one prepared `INSERT`, binding each checked row as it is read
/// (rows are never all in memory). Keys come from the root entity's `Z_MAX`, updated once at the
/// end. On an entity with uniqueness constraints, a conflicting row updates the stored object
/// (`ON CONFLICT (…) DO UPDATE SET …, Z_OPT = Z_OPT + 1 RETURNING Z_PK`) or leaves it
/// (`DO NOTHING`), or fails the request naming the row.
struct SQLiteBatchInsert {
    let store: SQLiteStore
    let connection: SQLiteConnection
    var history: SQLHistoryWriter<SQLiteStore>?
    let wantsObjectIDs: Bool
    /// Where external files written for the rows are noted.
    let files: SQLWriteFiles

    init(store: SQLiteStore, connection: SQLiteConnection, history: SQLHistoryWriter<SQLiteStore>?, files: SQLWriteFiles, wantsObjectIDs: Bool) {
        self.store = store
        self.connection = connection
        self.history = history
        self.files = files
        self.wantsObjectIDs = wantsObjectIDs
    }

    mutating func write(_ insert: StoreBatchRequest.Insert) throws -> StoreBatchResult {
        let target = try SQLBatchInsertTarget(insert, store: store, on: connection)
        let (table, root, maximum, columns, constraints) = (target.table, target.root, target.maximum, target.columns, target.constraints)
        let upserting = insert.onConflict != .fail && !constraints.isEmpty
        var sql = "INSERT INTO \(table.table) (Z_PK, Z_ENT, Z_OPT\(columns.map { ", " + $0.name }.joined())) VALUES (?, \(table.number), 1\(String(repeating: ", ?", count: columns.count)))"
        if upserting {
            let action = insert.onConflict == .updateStoredObject
                ? "DO UPDATE SET " + (columns.map { "\($0.name) = excluded.\($0.name)" } + ["Z_OPT = Z_OPT + 1"]).joined(separator: ", ")
                : "DO NOTHING"
            sql += constraints.map { " ON CONFLICT (\($0.joined(separator: ", "))) \(action)" }.joined()
            sql += " RETURNING Z_PK"
        }
        let statement = try connection.cachedStatement(sql)
        connection.log.statement(sql, [])
        var result = StoreBatchResult()
        var key = maximum
        var rowNumber = 0
        var firstNewKey: Int64?
        while let row = try insert.nextRow() {
            rowNumber += 1
            key += 1
            statement.reset()
            if row.count + 1 < statement.parameterCount { statement.clearBindings() }
            try statement.bind(.integer(key), at: 1)
            for position in row.indices {
                try statement.bind(try store.encode(row[position], for: columns[position], files: files), at: position + 2)
            }
            var storedKey: Int64?
            do {
                while try statement.step() { storedKey = statement.int64(at: 0) }
            } catch let error as SQLiteError where error.isUniqueViolation {
                statement.reset()
                throw ObjectValidationError(
                    .uniquenessConstraint, entity: table.name, key: constraints.first.map { $0.joined(separator: ",") },
                    "row \(rowNumber) of the batch insert into \(table.name) has the same uniquely constrained values as a stored object (or an earlier row); nothing was written")
            }
            if upserting {
                guard let storedKey else { continue }  // DO NOTHING: the stored object stays as it was
                result.count += 1
                if storedKey != key {
                    try history?.record(.update, entityNumber: table.number, key: storedKey, columns: insert.attributes.map(\.name))
                    if wantsObjectIDs, let id = store.rows.objectID(entityNumber: table.number, key: storedKey) { result.updated.append(id) }
                    continue
                }
            } else {
                result.count += 1
            }
            firstNewKey = firstNewKey ?? key
            if upserting { try history?.record(.insert, entityNumber: table.number, key: key) }
            if wantsObjectIDs, let id = store.rows.objectID(entityNumber: table.number, key: key) { result.inserted.append(id) }
        }
        statement.reset()
        if key > maximum {
            try connection.run("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?", [.integer(key), .integer(root)])
        }
        if !upserting, let firstNewKey { try history?.recordInsertions(into: table, keys: firstNewKey, through: key) }
        return result
    }
}
