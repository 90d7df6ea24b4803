import Foundation
import StoreCore

/// Changes recorded as ranges: one `Z_HISTORYCHANGE` row per run of consecutive keys of one
/// entity changed the same way (``SQLHistoryTables/lastKey``), instead of one row per object.
///
/// A range's changes keep the IDs they would have had as rows of their own: the writer takes
/// the IDs after the last one given out (``SQLStore/lastHistoryChangeID(on:)``, under the
/// history lock, so no other writer takes one meanwhile), one per key in key order, and the
/// range's row gets the ID of its last change. Readers expand a range back into its changes
/// (``HistoryAssembler``), so every history API returns what per-object rows would give.
///
/// For example, a batch update of the rows with keys 1–3 and 7 of entity 5, after change 40:
///
/// ```
/// Z_PK  ZENTITY  ZENTITYPK  ZLASTENTITYPK   →  changes 41 (key 1), 42 (2), 43 (3)
///  43      5         1           3
///  44      5         7         NULL          →  change 44 (key 7)
/// ```
extension SQLHistoryWriter {
    /// Records `type` changes of every key `first` through `last` of entity `entityNumber`, all
    /// there, as one row.
    mutating func recordRange(
        _ type: PersistentHistoryChange.ChangeType, entityNumber: Int64, keys first: Int64, through last: Int64, columns: String? = nil
    ) throws {
        try flush()
        let lastID = try store.lastHistoryChangeID(on: connection) + (last - first) + 1
        let lastKey = last == first ? "NULL" : String(last)
        try connection.run(
            """
            INSERT INTO \(SQLHistoryTables.changes) (Z_PK, ZTRANSACTION, ZCHANGETYPE, ZENTITY, ZENTITYPK, \(SQLHistoryTables.lastKey), ZCOLUMNS) \
            VALUES (\(lastID), \(transaction), \(type.rawValue), \(entityNumber), \(first), \(lastKey), \(Self.literal(columns)))
            """, [])
        try store.historyChangeIDsTaken(through: lastID, on: connection)
    }

    /// Records `type` changes of the rows of `table` (aliased `t0`) that `condition` selects
    /// (`nil`: every row), as ranges.
    mutating func recordRanges(
        _ type: PersistentHistoryChange.ChangeType, of table: EntityTable, where condition: String?, _ arguments: [SQLValue], columns: String?
    ) throws {
        let family = store.schema.tables[table.rootName]?.entityNumbers ?? [table.number]
        if condition == nil, family.count == 1, let entity = family.first {
            // The whole table of one entity: its size and bounds come from the key, without a scan.
            let count = try integer("SELECT COUNT(*) FROM \(table.table)", [])
            guard count > 0 else { return }
            let first = try integer("SELECT MIN(Z_PK) FROM \(table.table)", [])
            let last = try integer("SELECT MAX(Z_PK) FROM \(table.table)", [])
            if last - first + 1 == count {
                return try recordRange(type, entityNumber: entity, keys: first, through: last, columns: columns)
            }
        }
        let selection = "SELECT t0.Z_ENT AS ent, t0.Z_PK AS pk FROM \(table.table) t0" + (condition.map { " WHERE \($0)" } ?? "")
        try recordRanges(type, selecting: selection, arguments, columns: columns)
    }

    /// Records `type` changes of the rows `selection` returns (columns `ent` and `pk`), as ranges:
    /// one row when they are one run of one entity, else one per run, found by numbering the rows
    /// in key order (a run's keys minus their numbers within the entity are one value).
    mutating func recordRanges(_ type: PersistentHistoryChange.ChangeType, selecting selection: String, _ arguments: [SQLValue], columns: String?) throws {
        try flush()
        guard let row = try connection.collect(
            "SELECT COUNT(*), MIN(s.pk), MAX(s.pk), MIN(s.ent), MAX(s.ent) FROM (\(selection)) s", arguments,
            { row in row.isNull(at: 1) ? nil : (row.int64(at: 0), row.int64(at: 1), row.int64(at: 2), row.int64(at: 3), row.int64(at: 4)) }
        ).first else { return }
        let (count, first, last, entity, lastEntity) = row
        if entity == lastEntity, last - first + 1 == count {
            return try recordRange(type, entityNumber: entity, keys: first, through: last, columns: columns)
        }
        let base = try store.lastHistoryChangeID(on: connection)
        try connection.run(
            """
            INSERT INTO \(SQLHistoryTables.changes) (Z_PK, ZTRANSACTION, ZCHANGETYPE, ZENTITY, ZENTITYPK, \(SQLHistoryTables.lastKey), ZCOLUMNS) \
            SELECT \(base) + MAX(r.pos), \(transaction), \(type.rawValue), r.ent, MIN(r.pk), NULLIF(MAX(r.pk), MIN(r.pk)), \(Self.literal(columns)) \
            FROM (SELECT s.ent, s.pk, ROW_NUMBER() OVER (ORDER BY s.pk) AS pos, \
            s.pk - ROW_NUMBER() OVER (PARTITION BY s.ent ORDER BY s.pk) AS run FROM (\(selection)) s) r \
            GROUP BY r.ent, r.run
            """, arguments)
        try store.historyChangeIDsTaken(through: base + count, on: connection)
    }

    private func integer(_ sql: String, _ arguments: [SQLValue]) throws -> Int64 {
        guard case .integer(let value)? = try connection.scalar(sql, arguments) else {
            throw StoreError(.corrupt, url: store.url, "a table's key bounds read as no number")
        }
        return value
    }

    private static func literal(_ text: String?) -> String {
        text.map { QueryTranslator.literal(.text($0)) } ?? "NULL"
    }
}
