import StoreCore

extension SQLSchema {
    /// The statements that create an empty store for `model`: entity tables, join tables,
    /// Core Data's bookkeeping tables, and the indexes the model asks for — Core Data's layout,
    /// with the column types the dialect gives Core Data's (``SQLDialect/columnType(_:)``).
    ///
    /// Partial-index predicates are compiled by `predicateSQL`, which must inline constants
    /// (an index definition cannot take bound parameters).
    package func createStatements(model: ManagedObjectModel, predicateSQL: (EntityTable, String) throws -> String) throws -> [String] {
        let integer = dialect.columnType("INTEGER")
        var statements: [String] = [
            "CREATE TABLE Z_PRIMARYKEY (Z_ENT \(integer) PRIMARY KEY, Z_NAME \(dialect.columnType("VARCHAR")), Z_SUPER \(integer), Z_MAX \(integer))",
            "CREATE TABLE Z_METADATA (Z_VERSION \(integer) PRIMARY KEY, Z_UUID \(dialect.columnType("VARCHAR(255)")), Z_PLIST \(dialect.columnType("BLOB")))",
        ]
        for table in rootTables {
            let columns = ["Z_PK \(integer) PRIMARY KEY", "Z_ENT \(integer)", "Z_OPT \(integer)"] + table.columns.map { "\($0.name) \(dialect.columnType($0.type))" }
            statements.append("CREATE TABLE \(table.name) ( \(columns.joined(separator: ", ")) )")
        }
        for join in joinTables {
            let columns = ["\(join.ownerColumn) \(integer)", "\(join.memberColumn) \(integer)"] + join.orderColumns.map { "\($0) \(integer)" }
            statements.append("CREATE TABLE \(join.name) ( \(columns.joined(separator: ", ")), PRIMARY KEY (\(join.ownerColumn), \(join.memberColumn)) )")
            statements.append("CREATE INDEX \(join.name)_\(join.memberColumn)_INDEX ON \(join.name) (\(join.memberColumn), \(join.ownerColumn))")
        }
        for entity in model.entities {
            guard let table = tables[entity.name] else { continue }
            if entity.superentity == nil {
                if !entity.subentities.isEmpty {
                    statements.append("CREATE INDEX \(table.table)_Z_ENT_INDEX ON \(table.table) (Z_ENT)")
                }
                for root in rootTables where root.rootEntity == entity.name {
                    for column in root.columns where column.type == "INTEGER" && isForeignKey(column.name, in: entity) {
                        statements.append("CREATE INDEX \(table.table)_\(column.name)_INDEX ON \(table.table) (\(column.name))")
                    }
                }
            }
            statements += try indexStatements(for: entity, table: table, predicateSQL: predicateSQL)
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

    private func isForeignKey(_ column: String, in root: EntityDescription) -> Bool {
        let rootTable = Self.tableName(root.name)
        return tables.values.contains { table in
            (table.rootName == root.name && table.columns.contains { if case .toOne = $0.kind { $0.name == column } else { false } })
                // the owner's key of a to-many relationship without an inverse
                || table.toMany.values.contains { if case .foreignKey(_, rootTable, column, _) = $0 { true } else { false } }
        }
    }

    /// Fetch indexes (binary, partial, R-tree — ``SQLDialect/rTreeStatements(_:)``) and uniqueness
    /// constraints declared on `entity`.
    private func indexStatements(
        for entity: EntityDescription, table: EntityTable, predicateSQL: (EntityTable, String) throws -> String
    ) throws -> [String] {
        var statements: [String] = []
        func columnName(_ property: String) throws -> String {
            guard let column = table.column(for: property) else {
                throw ModelError(.invalidIndex, entity: entity.name, key: property, "\(entity.name).\(property) is not a stored attribute or to-one relationship, so it cannot be indexed")
            }
            return column.name
        }
        var names = Set(entity.indexes.map { "Z_\(entity.name)_\($0.name)" })
        for declared in entity.indexes {
            let name = "Z_\(entity.name)_\(declared.name)"
            // Elements no column holds (a to-many relationship, a transient property) are left
            // out, as the model's warnings say; an index left with none is not made.
            var index = declared
            index.elements.removeAll { entity.propertiesByName[$0.property].map { !Self.isIndexable($0) } ?? false }
            guard !index.elements.isEmpty else { continue }
            switch index.kind {
            case .binary:
                let columns = try index.elements.map { dialect.indexColumn(try columnName($0.property), ascending: $0.ascending) }
                var sql = "CREATE INDEX \(quoted(name)) ON \(table.table) (\(columns.joined(separator: ", ")))"
                if let predicate = index.partialIndexPredicate { sql += " WHERE " + (try predicateSQL(table, predicate)) }
                statements.append(sql)
                // Core Data also indexes the property of a single-property fetch index on its own,
                // as `Z_<Entity>_<property>` (it maps such an index to the property's "indexed" flag).
                if dialect.makesCoreDataTwins, index.elements.count == 1, index.partialIndexPredicate == nil, let element = index.elements.first,
                    names.insert("Z_\(entity.name)_\(element.property)").inserted
                {
                    statements.append("CREATE INDEX \(quoted("Z_\(entity.name)_\(element.property)")) ON \(table.table) (\(dialect.indexColumn(try columnName(element.property), ascending: true)))")
                }
            case .rTree:
                let rTree = try RTreeIndex(entity: table, index: index, columnName: columnName)
                statements += dialect.rTreeStatements(rTree)
                    ?? ["CREATE INDEX \(quoted(name)) ON \(table.table) (\(rTree.columns.map { dialect.indexColumn($0, ascending: true) }.joined(separator: ", ")))"]
            }
        }
        for constraint in entity.uniquenessConstraints {
            // Named and declared as Core Data does: `Z_<Entity>_UNIQUE_<keys joined by _>`.
            let columns = try constraint.map { dialect.indexColumn(try columnName($0), ascending: true) }
            var name = "Z_\(entity.name)_UNIQUE_" + constraint.joined(separator: "_")
            while !names.insert(name).inserted { name += "_" }
            statements.append("CREATE UNIQUE INDEX \(quoted(name)) ON \(table.table) (\(columns.joined(separator: ", ")))")
        }
        return statements
    }

    /// Whether a column can hold the property: a stored attribute or to-one relationship.
    private static func isIndexable(_ property: PropertyDescription) -> Bool {
        !property.isTransient && (property as? RelationshipDescription)?.isToMany != true
    }

    package func quoted(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
