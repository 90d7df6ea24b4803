import Foundation
import StoreCore

/// The tables persistent history lives in, inside the store and written in the same transaction
/// as the changes they describe (docs/sqlite-layout.md, "Persistent history"); each driver
/// creates them with its own column types.
package enum SQLHistoryTables {
    package static let transactions = "Z_HISTORYTRANSACTION"
    package static let changes = "Z_HISTORYCHANGE"
    /// The newest transaction a history deletion removed (`ZTRANSACTION`, one row kept): a token
    /// before it has expired (``SQLStore/execute(_:)``).
    package static let purges = "Z_HISTORYPURGE"
}

/// Records one persistent-history transaction inside the writer's transaction, for any SQL
/// store: the transaction row first (numbered by the database, under the driver's history lock
/// — ``SQLStore/lockHistory(on:)``), then one change row per object inserted, updated or deleted —
/// by a context's save (rows gathered and written many per statement) or a batch request (one
/// `INSERT … SELECT` per statement). Tombstones are built in SQL from the rows before they go.
///
/// For example:
///
/// ```swift
/// var history = try SQLHistoryWriter(store: store, connection: connection, author: "importer", contextName: nil)
/// try history.recordDeletions(from: table, where: "t0.Z_PK = ?1", [.integer(7)])
/// try history.finish()
/// ```
package struct SQLHistoryWriter<Store: SQLStore>: SQLHistoryRecording {
    let store: Store
    let connection: Store.Connection
    /// The transaction's number (its token).
    package let transaction: Int64
    /// Change rows not written yet, five values each.
    private var pending: [SQLValue] = []
    private static var rowsPerStatement: Int { 1000 }

    /// Starts the transaction's record.
    package init(store: Store, connection: Store.Connection, author: String?, contextName: String?) throws {
        self.store = store
        self.connection = connection
        try store.lockHistory(on: connection)
        let dialect = store.schema.dialect
        let parameters = (1...4).map { dialect.parameter($0, declaredType: nil) }.joined(separator: ", ")
        guard case .integer(let number)? = try connection.scalar(
            "INSERT INTO \(SQLHistoryTables.transactions) (ZTIMESTAMP, ZAUTHOR, ZCONTEXTNAME, ZPROCESSID) VALUES (\(parameters)) RETURNING Z_PK",
            [.real(Date().timeIntervalSinceReferenceDate), author.map(SQLValue.text) ?? .null, contextName.map(SQLValue.text) ?? .null,
             .integer(Int64(ProcessInfo.processInfo.processIdentifier))])
        else { throw StoreError(.corrupt, url: store.url, "the history transaction got no number") }
        transaction = number
    }

    private var dialect: any SQLDialect { store.schema.dialect }

    /// Records the change of one object (written with the next statement that needs it, or at the end).
    package mutating func record(_ type: PersistentHistoryChange.ChangeType, entityNumber: Int64, key: Int64, columns: [String]? = nil) throws {
        pending += [
            .integer(transaction), .integer(Int64(type.rawValue)), .integer(entityNumber), .integer(key),
            columns.map { .text($0.sorted().joined(separator: ",")) } ?? .null,
        ]
        if pending.count >= Self.rowsPerStatement * 5 { try flush() }
    }

    /// Writes the gathered change rows, many per statement.
    private mutating func flush() throws {
        guard !pending.isEmpty else { return }
        let rows = (0..<pending.count / 5).map { row in
            "(" + (1...5).map { dialect.parameter(row * 5 + $0, declaredType: nil) }.joined(separator: ", ") + ")"
        }
        try connection.run(
            "INSERT INTO \(SQLHistoryTables.changes) (ZTRANSACTION, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZCOLUMNS) VALUES " + rows.joined(separator: ", "),
            pending)
        pending.removeAll(keepingCapacity: true)
    }

    /// Records the deletion of the rows of `table` (aliased `t0`) that `condition` selects, with
    /// their tombstones; call before deleting them.
    package mutating func recordDeletions(from table: EntityTable, where condition: String, _ arguments: [SQLValue]) throws {
        try flush()
        try connection.run(
            """
            INSERT INTO \(SQLHistoryTables.changes) (ZTRANSACTION, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTOMBSTONE) \
            SELECT \(transaction), \(PersistentHistoryChange.ChangeType.delete.rawValue), t0.Z_ENT, t0.Z_PK, \(tombstoneCase(for: table)) \
            FROM \(table.table) t0 WHERE \(condition) ORDER BY t0.Z_PK
            """, arguments)
    }

    /// Records updates of `columns` to the rows `selection` returns (`Z_ENT`, `Z_PK` first).
    package mutating func recordUpdates(columns: [String], of selection: CompiledQuery) throws {
        try flush()
        let names = QueryTranslator.literal(.text(columns.sorted().joined(separator: ",")))
        try connection.run(
            """
            INSERT INTO \(SQLHistoryTables.changes) (ZTRANSACTION, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZCOLUMNS) \
            SELECT \(transaction), \(PersistentHistoryChange.ChangeType.update.rawValue), s.Z_ENT, s.Z_PK, \(names) \
            FROM (\(selection.sql)) s ORDER BY s.Z_PK
            """, selection.bindings)
    }

    /// Records changes of one type to the rows `selection` returns (`ent`, `pk` first), with `columns`.
    package mutating func record(_ type: PersistentHistoryChange.ChangeType, rowsOf selection: String, columns: String? = nil) throws {
        try flush()
        let names = columns.map { QueryTranslator.literal(.text($0)) } ?? "NULL"
        try connection.run(
            """
            INSERT INTO \(SQLHistoryTables.changes) (ZTRANSACTION, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZCOLUMNS) \
            SELECT \(transaction), \(type.rawValue), s.ent, s.pk, \(names) FROM (\(selection)) s ORDER BY s.ent, s.pk
            """, [])
    }

    /// Records the insertion of the rows of `table` with keys `first` through `last` (a batch
    /// insert's, or a save's consecutive new rows of one entity — all of the table's own entity: in
    /// key order, which the table's primary key gives without a sort).
    package mutating func recordInsertions(into table: EntityTable, keys first: Int64, through last: Int64) throws {
        try flush()
        try connection.run(
            """
            INSERT INTO \(SQLHistoryTables.changes) (ZTRANSACTION, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZCOLUMNS) \
            SELECT \(transaction), \(PersistentHistoryChange.ChangeType.insert.rawValue), \(table.number), t0.Z_PK, NULL \
            FROM \(table.table) t0 WHERE t0.Z_PK BETWEEN \(first) AND \(last) ORDER BY t0.Z_PK
            """, [])
    }

    // MARK: A context's save (SQLChangeWriter)

    package mutating func recordDeletion(of snapshot: StoreSnapshot, table: EntityTable, key: Int64) throws {
        try recordDeletions(
            from: table, where: "t0.Z_PK = \(dialect.parameter(1, declaredType: nil)) AND t0.Z_OPT = \(dialect.parameter(2, declaredType: nil))",
            [.integer(key), .integer(snapshot.version)])
    }

    package mutating func recordInsertion(of snapshot: StoreSnapshot, table: EntityTable, key: Int64) throws {
        try record(.insert, entityNumber: table.number, key: key)
    }

    package mutating func recordUpdate(of snapshot: StoreSnapshot, table: EntityTable, key: Int64) throws {
        try record(.update, entityNumber: table.number, key: key, columns: snapshot.heldProperties.map { snapshot.entity.properties[$0].name })
    }

    /// Writes what is gathered, and removes the transaction again if nothing was recorded in it.
    package mutating func finish() throws {
        try flush()
        let number = dialect.parameter(1, declaredType: nil)
        guard try connection.scalar("SELECT 1 FROM \(SQLHistoryTables.changes) WHERE ZTRANSACTION = \(number) LIMIT 1", [.integer(transaction)]) == nil
        else { return }
        try connection.run("DELETE FROM \(SQLHistoryTables.transactions) WHERE Z_PK = \(number)", [.integer(transaction)])
    }

    // MARK: Tombstones

    /// `CASE t0.Z_ENT WHEN n THEN <tombstone> … END` over the entities sharing the table.
    private func tombstoneCase(for table: EntityTable) -> String {
        let schema = store.schema
        let root = schema.tables[table.rootName] ?? table
        let cases = root.entityNumbers.compactMap { number -> String? in
            guard let name = schema.entityNames[number], let json = tombstone(of: name) else { return nil }
            return "WHEN \(number) THEN \(json)"
        }
        return cases.isEmpty ? "NULL" : "CASE t0.Z_ENT \(cases.joined(separator: " ")) END"
    }

    /// The tombstone of a row of entity `name` (``HistoryTombstone``'s JSON built in SQL), or `nil`
    /// when the entity preserves no attribute.
    private func tombstone(of name: String) -> String? {
        guard let table = store.schema.tables[name] else { return nil }
        let members = HistoryRecord.preservedAttributes(of: name, model: store.model).compactMap { attribute -> String? in
            guard let column = table.column(for: attribute.name), case .attribute(let type, _) = column.kind else { return nil }
            let value = switch type {
            case .binaryData, .uuid, .transformable, .objectID: dialect.hexText("t0.\(column.name)")
            case .decimal: "CAST(t0.\(column.name) AS TEXT)"
            default: "t0.\(column.name)"
            }
            return "\(QueryTranslator.literal(.text(attribute.name))), \(value)"
        }
        return members.isEmpty ? nil : dialect.jsonObject(members)
    }
}
