import Foundation
import StoreCore
import StoreSQL

/// Records one persistent-history transaction inside the writer's SQLite transaction: the
/// transaction row first, then one change row per object inserted, updated or deleted — by a
/// context's save (row by row) or a batch request (one INSERT … SELECT per statement).
struct HistoryWriter: SQLHistoryRecording {
    let connection: SQLiteConnection
    let schema: SQLSchema
    let model: ManagedObjectModel
    /// The transaction's number (its token).
    let transaction: Int64

    /// Starts the transaction's record.
    init(connection: SQLiteConnection, schema: SQLSchema, model: ManagedObjectModel, author: String?, contextName: String?) throws {
        self.connection = connection
        self.schema = schema
        self.model = model
        try connection.run(
            "INSERT INTO \(HistoryTables.transactions) (ZTIMESTAMP, ZAUTHOR, ZCONTEXTNAME, ZPROCESSID) VALUES (?, ?, ?, ?)",
            [.real(Date().timeIntervalSinceReferenceDate), author.map(SQLValue.text) ?? .null, contextName.map(SQLValue.text) ?? .null,
             .integer(Int64(ProcessInfo.processInfo.processIdentifier))])
        guard case .integer(let number)? = try connection.scalar("SELECT last_insert_rowid()") else {
            throw StoreError(.corrupt, "could not number the history transaction")
        }
        transaction = number
    }

    /// Records the change of one object.
    func record(_ type: PersistentHistoryChange.ChangeType, entityNumber: Int64, key: Int64, columns: [String]? = nil) throws {
        let statement = try connection.cachedStatement(
            "INSERT INTO \(HistoryTables.changes) (ZTRANSACTION, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZCOLUMNS) VALUES (?, ?, ?, ?, ?)")
        try statement.run([
            .integer(transaction), .integer(Int64(type.rawValue)), .integer(entityNumber), .integer(key),
            columns.map { .text($0.sorted().joined(separator: ",")) } ?? .null,
        ])
    }

    // MARK: A context's save (SQLChangeWriter)

    func recordDeletion(of snapshot: StoreSnapshot, table: EntityTable, key: Int64) throws {
        try recordDeletions(from: table, where: "t0.Z_PK = ? AND t0.Z_OPT = ?", [.integer(key), .integer(snapshot.version)])
    }

    func recordInsertion(of snapshot: StoreSnapshot, table: EntityTable, key: Int64) throws {
        try record(.insert, entityNumber: table.number, key: key)
    }

    func recordUpdate(of snapshot: StoreSnapshot, table: EntityTable, key: Int64) throws {
        try record(.update, entityNumber: table.number, key: key, columns: snapshot.heldProperties.map { snapshot.entity.properties[$0].name })
    }

    // MARK: Batch requests

    /// Records the deletion of the rows of `table` (aliased `t0`) that `condition` selects, with
    /// their tombstones; call before deleting them.
    func recordDeletions(from table: EntityTable, where condition: String, _ arguments: [SQLValue]) throws {
        let tombstone = tombstoneCase(for: table)
        try connection.run(
            """
            INSERT INTO \(HistoryTables.changes) (ZTRANSACTION, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTOMBSTONE) \
            SELECT \(transaction), \(PersistentHistoryChange.ChangeType.delete.rawValue), t0.Z_ENT, t0.Z_PK, \(tombstone) \
            FROM \(table.table) t0 WHERE \(condition) ORDER BY t0.Z_PK
            """, arguments)
    }

    /// Records updates of `columns` to the rows of `table` (aliased `t0`) that `condition` selects.
    func recordUpdates(of table: EntityTable, columns: [String], where condition: String, _ arguments: [SQLValue]) throws {
        try connection.run(
            """
            INSERT INTO \(HistoryTables.changes) (ZTRANSACTION, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZCOLUMNS) \
            SELECT \(transaction), \(PersistentHistoryChange.ChangeType.update.rawValue), t0.Z_ENT, t0.Z_PK, ? \
            FROM \(table.table) t0 WHERE \(condition) ORDER BY t0.Z_PK
            """, [.text(columns.sorted().joined(separator: ","))] + arguments)
    }

    /// Removes the transaction again if nothing was recorded in it.
    func finish() throws {
        guard try connection.scalar("SELECT 1 FROM \(HistoryTables.changes) WHERE ZTRANSACTION = ? LIMIT 1", [.integer(transaction)]) == nil else { return }
        try connection.run("DELETE FROM \(HistoryTables.transactions) WHERE Z_PK = ?", [.integer(transaction)])
    }

    /// `CASE t0.Z_ENT WHEN n THEN json_object(…) … END` over the entities sharing the table.
    private func tombstoneCase(for table: EntityTable) -> String {
        let root = schema.tables[table.rootName] ?? table
        let cases = root.entityNumbers.compactMap { number -> String? in
            guard let name = schema.entityNames[number],
                let json = HistoryTables.tombstoneSQL(for: name, schema: schema, model: model, alias: "t0")
            else { return nil }
            return "WHEN \(number) THEN \(json)"
        }
        return cases.isEmpty ? "NULL" : "CASE t0.Z_ENT \(cases.joined(separator: " ")) END"
    }
}
