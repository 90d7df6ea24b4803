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
    /// The column of `Z_HISTORYCHANGE` that makes a row a range of changes: the last key of a run
    /// of consecutive keys of one entity whose first is `ZENTITYPK`, all changed the same way
    /// (`NULL`: the row is one object). The row's `Z_PK` is the ID of the range's last change;
    /// the changes before it have the IDs before it, one per key (``SQLHistoryWriter``).
    package static let lastKey = "ZLASTENTITYPK"
    /// The index of ranges by entity and last key, which finds the ranges holding an object.
    package static let rangeIndex = "Z_HISTORYCHANGE_RANGE"
    package static let rangeIndexDDL =
        "CREATE INDEX IF NOT EXISTS \(rangeIndex) ON \(changes) (ZENTITY, \(lastKey)) WHERE \(lastKey) IS NOT NULL"
}

/// Records one persistent-history transaction inside the writer's transaction, for any SQL
/// store: the transaction row first (numbered by the database, under the driver's history lock
/// — ``SQLStore/lockHistory(on:)``), then the change rows: one per object a context's save
/// inserts, updates or deletes (gathered and written many per statement), and for a batch
/// request and a save's run of new rows, one per run of consecutive keys of one entity changed
/// the same way (``SQLHistoryTables/lastKey``, written by one `INSERT … SELECT`; see
/// `SQLHistoryWriter+Ranges.swift`). Deleted objects whose entity preserves attributes keep a
/// row each, with the tombstone built in SQL from the row before it goes.
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

    var dialect: any SQLDialect { store.schema.dialect }

    /// Records the change of one object (written with the next statement that needs it, or at the end).
    package mutating func record(_ type: PersistentHistoryChange.ChangeType, entityNumber: Int64, key: Int64, columns: [String]? = nil) throws {
        pending += [
            .integer(transaction), .integer(Int64(type.rawValue)), .integer(entityNumber), .integer(key),
            columns.map { .text($0.sorted().joined(separator: ",")) } ?? .null,
        ]
        if pending.count >= Self.rowsPerStatement * 5 { try flush() }
    }

    /// Writes the gathered change rows, many per statement.
    mutating func flush() throws {
        guard !pending.isEmpty else { return }
        let rows = (0..<pending.count / 5).map { row in
            "(" + (1...5).map { dialect.parameter(row * 5 + $0, declaredType: nil) }.joined(separator: ", ") + ")"
        }
        try connection.run(
            "INSERT INTO \(SQLHistoryTables.changes) (ZTRANSACTION, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZCOLUMNS) VALUES " + rows.joined(separator: ", "),
            pending)
        pending.removeAll(keepingCapacity: true)
    }

    /// Records the deletion of the rows of `table` (aliased `t0`) that `condition` selects (`nil`:
    /// every row), with their tombstones; call before deleting them. Without tombstones in the
    /// table, as ranges of keys; with, one row per object.
    package mutating func recordDeletions(from table: EntityTable, where condition: String?, _ arguments: [SQLValue]) throws {
        guard tombstoneCase(for: table) != "NULL" else {
            return try recordRanges(.delete, of: table, where: condition, arguments, columns: nil)
        }
        try recordDeletionsWithTombstones(from: table, where: condition ?? "TRUE", arguments)
    }

    /// One change row per deleted object, with its tombstone.
    private mutating func recordDeletionsWithTombstones(from table: EntityTable, where condition: String, _ arguments: [SQLValue]) throws {
        try flush()
        try connection.run(
            """
            INSERT INTO \(SQLHistoryTables.changes) (ZTRANSACTION, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTOMBSTONE) \
            SELECT \(transaction), \(PersistentHistoryChange.ChangeType.delete.rawValue), t0.Z_ENT, t0.Z_PK, \(tombstoneCase(for: table)) \
            FROM \(table.table) t0 WHERE \(condition) ORDER BY t0.Z_PK
            """, arguments)
    }

    /// Records updates of `columns` to the rows `selection` returns (`Z_ENT`, `Z_PK` first), as
    /// ranges of keys.
    package mutating func recordUpdates(columns: [String], of selection: CompiledQuery) throws {
        try recordRanges(.update, selecting: "SELECT s.Z_ENT AS ent, s.Z_PK AS pk FROM (\(selection.sql)) s", selection.bindings,
                         columns: columns.sorted().joined(separator: ","))
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
    /// insert's, or a save's consecutive new rows of one entity — every key of them inserted, all
    /// of the table's own entity) as one range.
    package mutating func recordInsertions(into table: EntityTable, keys first: Int64, through last: Int64) throws {
        guard first <= last else { return }
        try recordRange(.insert, entityNumber: table.number, keys: first, through: last)
    }

    // MARK: A context's save (SQLChangeWriter)

    package mutating func recordDeletion(of snapshot: StoreSnapshot, table: EntityTable, key: Int64) throws {
        try recordDeletionsWithTombstones(
            from: table, where: "t0.Z_PK = \(dialect.parameter(1, declaredType: nil)) AND t0.Z_OPT = \(dialect.parameter(2, declaredType: nil))",
            [.integer(key), .integer(snapshot.version)])
    }

    /// One change row per deleted object of the run, with its tombstone, in key order (one
    /// statement; rows at another version, which the save will not delete, are not recorded).
    package mutating func recordDeletions(from table: EntityTable, version: Int64, keys first: Int64, through last: Int64) throws {
        let parameters = (1...3).map { dialect.parameter($0, declaredType: nil) }
        try recordDeletionsWithTombstones(
            from: table, where: "t0.Z_OPT = \(parameters[0]) AND t0.Z_PK BETWEEN \(parameters[1]) AND \(parameters[2])",
            [.integer(version), .integer(first), .integer(last)])
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

    /// `CASE t0.Z_ENT WHEN n THEN <tombstone> … END` over the entities sharing the table (`NULL`
    /// when none of them preserves an attribute).
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
