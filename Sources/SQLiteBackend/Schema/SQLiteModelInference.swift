import Foundation
import StoreCore
import StoreSQL

/// Reads a Core Data SQLite store's layout — `Z_PRIMARYKEY`, entity tables, foreign-key indexes,
/// `Z_FOK_` columns, join tables — and rebuilds a model from it (``/StoreCore/InferredModel``).
///
/// What is recovered and what is guessed is listed in docs/inspection.md: entity names, numbers
/// and inheritance exactly; attribute names upper-cased by Core Data come back lower-cased
/// (`ZFIRSTNAME` → `firstname`) with a type from the column's declared type; to-one
/// relationships are the indexed `INTEGER` columns, their destination matched by name and checked
/// against the keys they hold; many-to-many pairs come from join tables, named on both sides.
///
/// For example:
///
/// ```swift
/// let inferred = try SQLiteModelInference(url: url).infer()
/// ```
struct SQLiteModelInference {
    let url: URL

    typealias PrimaryKeyRow = PrimaryKeyTable.Row
    struct ColumnInfo { let name: String; let type: String }

    func infer() throws -> InferredModel {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw StoreError(.io, url: url, "there is no file here")
        }
        return try SQLiteConnection.reading(url) { try infer(on: $0) }
    }

    private func infer(on connection: SQLiteConnection) throws -> InferredModel {
        var tables: [String: [ColumnInfo]] = [:]
        try connection.query("SELECT name FROM sqlite_master WHERE type = 'table'") { row in
            if let name = row.string(at: 0) { tables[name] = [] }
        }
        guard tables["Z_PRIMARYKEY"] != nil, tables["Z_METADATA"] != nil else {
            throw StoreError(.wrongFormat, url: url, "the SQLite database has no Z_PRIMARYKEY and Z_METADATA tables, so it is not a Core Data store")
        }
        for name in Array(tables.keys) {
            var columns: [ColumnInfo] = []
            try connection.query("SELECT name, type FROM pragma_table_info(?)", [.text(name)]) { row in
                if let column = row.string(at: 0) { columns.append(ColumnInfo(name: column, type: row.string(at: 1) ?? "")) }
            }
            tables[name] = columns
        }
        // Single-column indexes Core Data makes for foreign keys: <TABLE>_<COLUMN>_INDEX.
        var foreignKeyIndexes: Set<String> = []
        try connection.query("SELECT name, tbl_name FROM sqlite_master WHERE type = 'index'") { row in
            if let name = row.string(at: 0), let table = row.string(at: 1), name.hasPrefix(table + "_"), name.hasSuffix("_INDEX") {
                foreignKeyIndexes.insert(String(name.dropFirst(table.count + 1).dropLast("_INDEX".count)) + "@" + table)
            }
        }
        let rows = try PrimaryKeyTable.read(on: connection, url: url)

        var builder = InferredModelBuilder()
        builder.metadata = try metadataText(on: connection)
        let byNumber = Dictionary(rows.map { ($0.number, $0) }) { first, _ in first }
        func root(of row: PrimaryKeyRow) -> PrimaryKeyRow {
            var current = row, steps = 0
            while current.superNumber != 0, let parent = byNumber[current.superNumber], steps < rows.count { current = parent; steps += 1 }
            return current
        }
        var numbers: [String: Int64] = [:]
        for row in rows {
            let table = SQLSchema.tableName(root(of: row).name)
            guard tables[table] != nil else {
                builder.notes.append("entity \(row.name) was left out: its table \(table) is missing")
                continue
            }
            let parent = row.superNumber == 0 ? nil : byNumber[row.superNumber]?.name
            if builder.addEntity(row.name, parent: parent) { numbers[row.name] = row.number }
        }
        let namesByNumber = Dictionary(numbers.map { ($1, $0) }) { first, _ in first }

        // Join tables first: they name both sides of many-to-many relationships.
        var joinTables: Set<String> = []
        for (table, columns) in tables.sorted(by: { $0.key < $1.key }) {
            guard let (owner, relationship) = Self.numbered(table, prefix: "Z_"), let ownerName = namesByNumber[owner] else { continue }
            if try addJoinTable(table, columns: columns, owner: ownerName, relationship: relationship, names: namesByNumber, to: &builder) {
                joinTables.insert(table)
            }
        }

        for row in rows where row.superNumber == 0 {
            guard numbers[row.name] != nil else { continue }
            let table = SQLSchema.tableName(row.name)
            try addColumns(of: table, columns: tables[table] ?? [], root: row.name, rows: rows, numbers: numbers, foreignKeyIndexes: foreignKeyIndexes, on: connection, to: &builder)
        }

        let bookkeeping: Set<String> = ["Z_PRIMARYKEY", "Z_METADATA", "Z_MODELCACHE"]
        let entityTables = Set(rows.map { SQLSchema.tableName($0.name) })
        for table in tables.keys.sorted() where !bookkeeping.contains(table) && !joinTables.contains(table) && !entityTables.contains(table)
            && !table.hasPrefix("sqlite_") && !(table.hasPrefix("Z_") && Self.numbered(table, prefix: "Z_") == nil) {
            builder.notes.append("table \(table) is not an entity table of the store and was left out")
        }
        return try builder.build(storeType: .sqlite)
    }

    // MARK: Entity tables

    private func addColumns(
        of table: String, columns: [ColumnInfo], root: String, rows: [PrimaryKeyRow], numbers: [String: Int64],
        foreignKeyIndexes: Set<String>, on connection: SQLiteConnection, to builder: inout InferredModelBuilder
    ) throws {
        let names = Set(columns.map(\.name))
        let family = familyNumbers(of: root, rows: rows, numbers: numbers)
        let namesByNumber = Dictionary(numbers.map { ($1, $0) }) { first, _ in first }
        for column in columns where !["Z_PK", "Z_ENT", "Z_OPT"].contains(column.name) {
            if column.name.hasPrefix("Z_FOK_") {
                if !names.contains("Z" + column.name.dropFirst("Z_FOK_".count)) && Self.numbered(column.name, prefix: "Z") == nil {
                    builder.notes.append("\(table).\(column.name) orders nothing the store names and was left out")
                }
                continue
            }
            guard column.name.hasPrefix("Z"), !column.name.hasPrefix("Z_"), column.name.count > 1 else {
                builder.notes.append("\(table).\(column.name) is not a Core Data column and was left out")
                continue
            }
            let owner = try ownerEntity(of: column.name, in: table, root: root, family: family, rows: rows, namesByNumber: namesByNumber, on: connection)
            let isInteger = column.type.uppercased().contains("INT")
            let isForeignKey = isInteger && (foreignKeyIndexes.contains(column.name + "@" + table) || names.contains("Z_FOK_" + column.name.dropFirst()))
            let base = String(column.name.dropFirst())
            let columnInfo = [SQLSchema.columnNameKey: column.name]

            if isForeignKey, let (number, relationship) = Self.numbered(column.name, prefix: "Z"), let source = namesByNumber[number] {
                if names.contains("Z" + relationship) {
                    builder.notes.append("\(table).\(column.name) (the entity of \(table).Z\(relationship)'s destination) was left out")
                    continue
                }
                // A to-many without an inverse: the owner's key, in the member's table.
                builder.addRelationship(
                    relationship.lowercased(), from: source, to: owner, isToMany: true,
                    isOrdered: names.contains("Z_FOK_" + column.name.dropFirst()), pairs: false)
                continue
            }
            let name = Self.propertyName(base)
            if isForeignKey {
                if let destination = try destination(of: column.name, named: name, in: table, rows: rows, numbers: numbers, on: connection) {
                    let ordered = names.contains("Z_FOK_" + base)
                    builder.addRelationship(
                        name, from: owner, to: destination, userInfo: columnInfo,
                        inverseShape: .init(isToMany: true, isOrdered: ordered))
                    continue
                }
                builder.notes.append("\(owner).\(name) looks like a to-one relationship, but its destination cannot be told; it is read as an integer")
            }
            builder.addAttribute(name, Self.attributeType(declared: column.type), to: owner, userInfo: columnInfo)
        }
    }

    /// The numbers of `root` and its descendants.
    private func familyNumbers(of root: String, rows: [PrimaryKeyRow], numbers: [String: Int64]) -> [Int64] {
        guard let rootNumber = numbers[root] else { return [] }
        var family: [Int64] = [rootNumber]
        var index = 0
        while index < family.count {
            let parent = family[index]
            family += rows.filter { $0.superNumber == parent && numbers[$0.name] != nil }.map(\.number)
            index += 1
        }
        return family
    }

    /// The entity of the hierarchy that declares a column: the nearest common ancestor of the
    /// entities whose rows hold a value in it (the root when no row does).
    private func ownerEntity(
        of column: String, in table: String, root: String, family: [Int64], rows: [PrimaryKeyRow],
        namesByNumber: [Int64: String], on connection: SQLiteConnection
    ) throws -> String {
        guard family.count > 1 else { return root }
        var used: [Int64] = []
        try connection.query("SELECT DISTINCT Z_ENT FROM \(Self.quoted(table)) WHERE \(Self.quoted(column)) IS NOT NULL") { row in
            used.append(row.int64(at: 0))
        }
        let parents = Dictionary(rows.map { ($0.number, $0.superNumber) }) { first, _ in first }
        func chain(_ number: Int64) -> [Int64] {
            var result = [number], current = number
            while let parent = parents[current], parent != 0, result.count <= rows.count { result.insert(parent, at: 0); current = parent }
            return result
        }
        let chains = used.filter(family.contains).map(chain)
        guard var common = chains.first else { return root }
        for other in chains.dropFirst() {
            common = Array(zip(common, other).prefix { $0 == $1 }.map(\.0))
        }
        return common.last.flatMap { namesByNumber[$0] } ?? root
    }

    /// The destination of a to-one column: the entity whose name fits the relationship's best
    /// among those holding every key the column refers to.
    private func destination(
        of column: String, named name: String, in table: String, rows: [PrimaryKeyRow], numbers: [String: Int64],
        on connection: SQLiteConnection
    ) throws -> String? {
        let candidates = numbers.keys.sorted()
        if candidates.count == 1 { return candidates[0] }
        var fitting: [String] = []
        for candidate in candidates {
            guard let row = rows.first(where: { $0.name == candidate }) else { continue }
            var top = row
            while top.superNumber != 0, let parent = rows.first(where: { $0.number == top.superNumber }) { top = parent }
            let family = familyNumbers(of: candidate, rows: rows, numbers: numbers).map(String.init).joined(separator: ", ")
            let missing = try connection.scalar("""
                SELECT COUNT(*) FROM \(Self.quoted(table)) WHERE \(Self.quoted(column)) IS NOT NULL AND \(Self.quoted(column)) NOT IN \
                (SELECT Z_PK FROM \(Self.quoted(SQLSchema.tableName(top.name))) WHERE Z_ENT IN (\(family)))
                """)
            if missing == .integer(0) { fitting.append(candidate) }
        }
        let scored = fitting.map { ($0, Self.nameScore(entity: $0, relationship: name)) }.filter { $0.1 > 0 }
        if let best = scored.max(by: { $0.1 != $1.1 ? $0.1 < $1.1 : $0.0.count > $1.0.count }) { return best.0 }
        return fitting.count == 1 ? fitting[0] : nil
    }

    /// How well an entity's name fits a relationship's: 4 equal, 3 plural, 2 ends with it, 1 contains it.
    static func nameScore(entity: String, relationship: String) -> Int {
        var name = entity.lowercased()
        for suffix in ["entity", "mo", "object"] where name.hasSuffix(suffix) && name.count > suffix.count {
            name.removeLast(suffix.count)
            break
        }
        let key = relationship.lowercased()
        if name == key || entity.lowercased() == key { return 4 }
        if key.hasSuffix("s"), name == String(key.dropLast()) { return 3 }
        if name.hasSuffix(key) { return 2 }
        if name.contains(key) || key.contains(name) { return 1 }
        return 0
    }
}
