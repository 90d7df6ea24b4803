#if Postgres  // the PostgreSQL store is built only with the Postgres package trait (Package.swift)
import StoreCore
import StoreSQL

extension SQLSchema {
    /// The statements that create an empty store for `model` in the current schema: Core Data's
    /// tables with PostgreSQL's types, join tables, `Z_PRIMARYKEY`, `Z_METADATA`, and the
    /// indexes the model asks for. R-tree fetch indexes become B-tree indexes over their
    /// columns (PostgreSQL's R-tree is GiST over geometric types, which Core Data's `_MIN`/`_MAX`
    /// columns are not); queries over them give the same answers, found through the B-tree.
    func postgresCreateStatements(model: ManagedObjectModel, predicateSQL: (EntityTable, String) throws -> String) throws -> [String] {
        var statements: [String] = [
            "CREATE TABLE Z_PRIMARYKEY (Z_ENT BIGINT PRIMARY KEY, Z_NAME TEXT, Z_SUPER BIGINT, Z_MAX BIGINT)",
            "CREATE TABLE Z_METADATA (Z_VERSION BIGINT PRIMARY KEY, Z_UUID TEXT, Z_PLIST BYTEA)",
        ]
        for table in rootTables {
            let columns = ["Z_PK BIGINT PRIMARY KEY", "Z_ENT BIGINT", "Z_OPT BIGINT"]
                + table.columns.map { "\($0.name) \(PostgresDialect.columnType($0.type))" }
            statements.append("CREATE TABLE \(table.name) ( \(columns.joined(separator: ", ")) )")
        }
        for join in joinTables {
            let columns = ["\(join.ownerColumn) BIGINT", "\(join.memberColumn) BIGINT"] + join.orderColumns.map { "\($0) BIGINT" }
            statements.append("CREATE TABLE \(join.name) ( \(columns.joined(separator: ", ")), PRIMARY KEY (\(join.ownerColumn), \(join.memberColumn)) )")
            statements.append("CREATE INDEX \(join.name)_\(join.memberColumn)_INDEX ON \(join.name) (\(join.memberColumn), \(join.ownerColumn))")
        }
        var indexed: Set<String> = []
        for root in rootTables {
            let hierarchy = tables.values.filter { $0.rootName == root.rootEntity }
            if hierarchy.count > 1 { statements.append("CREATE INDEX \(root.name)_Z_ENT_INDEX ON \(root.name) (Z_ENT)") }
            // Foreign keys: to-one columns, and owners' keys of to-many relationships without an inverse.
            var keys = Set(hierarchy.flatMap { table in table.columns.compactMap { if case .toOne = $0.kind { $0.name } else { nil } } })
            for table in tables.values {
                for case .foreignKey(_, root.name, let column, _) in table.toMany.values { keys.insert(column) }
            }
            for column in keys.sorted() where indexed.insert("\(root.name).\(column)").inserted {
                statements.append("CREATE INDEX \(root.name)_\(column)_INDEX ON \(root.name) (\(column))")
            }
        }
        for entity in model.entities {
            guard let table = tables[entity.name] else { continue }
            statements += try postgresIndexStatements(for: entity, table: table, predicateSQL: predicateSQL)
        }
        var primaryKeys: [String] = []
        for number in entityNames.keys.sorted() {
            guard let name = entityNames[number], let table = tables[name] else { continue }
            primaryKeys.append("(\(number), '\(name.replacingOccurrences(of: "'", with: "''"))', \(table.superNumber), 0)")
        }
        if !primaryKeys.isEmpty {
            statements.append("INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES " + primaryKeys.joined(separator: ", "))
        }
        return statements
    }

    /// Fetch indexes (B-tree, partial, R-tree as B-tree) and uniqueness constraints of `entity`,
    /// named as Core Data names them.
    private func postgresIndexStatements(
        for entity: EntityDescription, table: EntityTable, predicateSQL: (EntityTable, String) throws -> String
    ) throws -> [String] {
        var statements: [String] = []
        func columnName(_ property: String) throws -> String {
            guard let column = table.column(for: property) else {
                throw ModelError(.invalidIndex, entity: entity.name, key: property, "\(entity.name).\(property) is not a stored attribute or to-one relationship, so it cannot be indexed")
            }
            return column.name
        }
        var names: Set<String> = []
        func uniqueName(_ base: String) -> String {
            var name = base
            while !names.insert(name.lowercased()).inserted { name += "_" }
            return "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }
        for index in entity.indexes {
            let name = uniqueName("Z_\(entity.name)_\(index.name)")
            // In the NULL order the store's sorts ask for (NULL first ascending, last descending), so
            // that an ORDER BY in either direction can walk the index (backwards for the other one).
            let columns = try index.elements.map {
                "\(try columnName($0.property)) \($0.ascending ? "ASC" : "DESC")" + dialect.nullOrdering(ascending: $0.ascending)
            }
            var sql = "CREATE INDEX \(name) ON \(table.table) (\(columns.joined(separator: ", ")))"
            if index.kind == .binary, let predicate = index.partialIndexPredicate { sql += " WHERE " + (try predicateSQL(table, predicate)) }
            statements.append(sql)
        }
        for constraint in entity.uniquenessConstraints {
            let columns = try constraint.map { try columnName($0) }
            let name = uniqueName("Z_\(entity.name)_UNIQUE_" + constraint.joined(separator: "_"))
            statements.append("CREATE UNIQUE INDEX \(name) ON \(table.table) (\(columns.joined(separator: ", ")))")
        }
        return statements
    }
}
#endif
