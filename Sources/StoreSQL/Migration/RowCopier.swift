import StoreCore

/// The `INSERT … SELECT` statements that fill the destination's tables from the old ones
/// (renamed `Z_OLD_<name>`): one per carried entity, one per join table; and — when entities
/// were removed — the statements that clear references to their objects.
///
/// Each destination column is computed from the source row (`s`): an attribute from the
/// attribute its mapping names (converted by the store's conversion function — SQLite's
/// `stowage_convert` — when its type changed; the
/// default value for a new attribute or the nils of one that became required), a to-one key
/// from the source's to-one, the hidden owner key of a to-many without inverse from however
/// the source held that relationship, and positions from the source's `Z_FOK_` columns (or the
/// key, for a relationship that became ordered).
///
/// For example:
///
/// ```swift
/// for (sql, values) in try RowCopier(request: request, source: old, destination: new, keys: keys, convertFunction: "stowage_convert").statements() {
///     try connection.run(sql, values)
/// }
/// ```
package struct RowCopier {
    package let request: StoreMigrationRequest
    package let source: SQLSchema
    package let destination: SQLSchema
    package let keys: KeyOffsets
    /// The SQL function converting a value between attribute types (`f(value, 'From', 'To')`);
    /// without one, a mapping that changes a type is refused as needing a migration manager.
    package let convertFunction: String?
    /// Tables changed in place with `ALTER TABLE` (SQLite's `inPlaceChanges(of:)`), whose rows are not copied.
    package var inPlaceTables: Set<String> = []
    /// The schema the old tables are read from under their own names (PostgreSQL builds the
    /// destination in a schema of its own); without one, they are read renamed `Z_OLD_<name>`.
    package var sourceSchema: String?

    package init(request: StoreMigrationRequest, source: SQLSchema, destination: SQLSchema, keys: KeyOffsets, convertFunction: String?) {
        self.request = request
        self.source = source
        self.destination = destination
        self.keys = keys
        self.convertFunction = convertFunction
    }

    /// The name an old table has while the migration runs.
    package static func old(_ table: String) -> String { "Z_OLD_" + table }

    /// Where the source rows of `table` are read: the renamed old table, the table itself when it
    /// is changed in place (its `ALTER TABLE`s run after every copy), or the table in the source
    /// schema.
    func sourceTable(_ table: String) -> String {
        if let sourceSchema { return "\(sourceSchema).\(table)" }
        return inPlaceTables.contains(table) ? table : Self.old(table)
    }

    var mapping: MappingModel { request.mapping }

    /// The `INSERT … SELECT` of every carried entity's rows and every join table, with the values
    /// bound to each statement's `?` placeholders.
    package func statements() throws -> [(sql: String, values: [SQLValue])] {
        var statements: [(sql: String, values: [SQLValue])] = []
        for entity in request.destinationModel.entities.sorted(by: { $0.name < $1.name }) {
            if let statement = try rowCopy(into: entity) { statements.append(statement) }
        }
        statements += try joinTableCopies().map { ($0, []) }
        return statements
    }

    /// What clears references to objects of removed entities, run once every table has its
    /// destination layout; empty when every source entity was carried over.
    package func cleanupStatements() -> [String] {
        let carried = Set(request.destinationModel.entities.compactMap { carriedSource(of: $0.name) })
        guard request.sourceModel.entities.contains(where: { !carried.contains($0.name) }) else { return [] }
        return danglingReferenceCleanup()
    }

    /// The source entity whose objects become objects of `destinationEntity`, if any.
    private func carriedSource(of destinationEntity: String) -> String? {
        guard let plan = mapping.entityMapping(forDestinationEntity: destinationEntity),
            plan.mappingType == .copy || plan.mappingType == .transform
        else { return nil }
        return plan.sourceEntityName
    }

    // MARK: Entity rows

    /// The columns of `entity`'s rows in the destination and the expression over the source
    /// row (`s`) that fills each, with the values bound to the expressions' placeholders.
    package struct RowSelection {
        package let from: EntityTable
        package let to: EntityTable
        package var columns = ["Z_PK", "Z_ENT", "Z_OPT"]
        package var expressions: [String]
        package var values: [SQLValue] = []
    }

    private func rowCopy(into entity: EntityDescription) throws -> (sql: String, values: [SQLValue])? {
        guard let selection = try rowSelection(into: entity), !inPlaceTables.contains(selection.to.table) else { return nil }
        let sql = """
            INSERT INTO \(selection.to.table) (\(selection.columns.joined(separator: ", "))) \
            SELECT \(selection.expressions.joined(separator: ", ")) FROM \(sourceTable(selection.from.table)) AS s WHERE s.Z_ENT = \(selection.from.number)
            """
        return (sql, selection.values)
    }

    package func rowSelection(into entity: EntityDescription) throws -> RowSelection? {
        guard let plan = mapping.entityMapping(forDestinationEntity: entity.name) else { return nil }
        switch plan.mappingType {
        case .add: return nil
        case .copy, .transform: break
        default:
            throw MigrationError(.invalidMapping, entity: entity.name, "entity mapping \(plan.name) is not a copy, transform, add or remove mapping, which needs a migration manager")
        }
        guard plan.sourcePredicate == nil else {
            throw MigrationError(.invalidMapping, entity: entity.name, "entity mapping \(plan.name) has a source expression, which needs a migration manager")
        }
        guard let sourceName = plan.sourceEntityName, let from = source.tables[sourceName], let to = destination.tables[entity.name] else {
            throw MigrationError(.invalidMapping, entity: entity.name, "entity mapping \(plan.name) names an entity the models do not have")
        }
        var selection = RowSelection(from: from, to: to, expressions: [keys.key("s.Z_PK", sourceEntity: sourceName), String(to.number), "s.Z_OPT"])
        for column in to.columns {
            switch column.kind {
            case .attribute(_, let externalStorage):
                guard let attribute = entity.attributesByName[column.property] else { continue }
                selection.columns.append(column.name)
                selection.expressions.append(try attributeExpression(
                    attribute, externalStorage: externalStorage, mapping: plan.attributeMappings.first { $0.name == column.property },
                    from: from, values: &selection.values))
            case .toOne(_, let orderColumn):
                let carried = try toOneExpressions(column.property, plan: plan, from: from, entity: entity.name)
                selection.columns.append(column.name)
                selection.expressions.append(carried.key)
                if let orderColumn {
                    selection.columns.append(orderColumn)
                    selection.expressions.append(carried.order)
                }
            }
        }
        for hidden in hiddenOwnerColumns(of: to) where !selection.columns.contains(hidden.column) {
            let carried = try hiddenOwnerExpressions(hidden.owner, relationship: hidden.relationship, memberTable: from)
            selection.columns.append(hidden.column)
            selection.expressions.append(carried.key)
            if let order = hidden.order {
                selection.columns.append(order)
                selection.expressions.append(carried.order)
            }
        }
        return selection
    }

    private func attributeExpression(
        _ attribute: AttributeDescription, externalStorage: Bool, mapping property: PropertyMapping?, from: EntityTable, values: inout [SQLValue]
    ) throws -> String {
        var expression = "NULL"
        if let property, let key = property.sourceKey {
            guard let column = from.column(for: key), case .attribute(_, let sourceExternal) = column.kind else {
                throw MigrationError(.invalidMapping, entity: attribute.entity?.name, key: attribute.name, "the mapping takes \(attribute.name) from \(key), which is not a stored attribute of \(from.name)")
            }
            guard sourceExternal == externalStorage else {
                throw MigrationError(
                    .migrationFailed, entity: attribute.entity?.name, key: attribute.name,
                    "allowsExternalBinaryDataStorage changed for \(attribute.name); a SQLite store is not migrated in place across that change")
            }
            expression = "s." + column.name
            if let conversion = property.conversion {
                guard let convertFunction else {
                    throw MigrationError(
                        .invalidMapping, entity: attribute.entity?.name, key: attribute.name,
                        "\(attribute.name) changes type from \(conversion.sourceType.name) to \(conversion.destinationType.name), which this store converts through a migration manager")
                }
                expression = "\(convertFunction)(\(expression), '\(conversion.sourceType.name)', '\(conversion.destinationType.name)')"
            }
        } else if property?.valueExpression != nil {
            throw MigrationError(.invalidMapping, entity: attribute.entity?.name, key: attribute.name, "value expressions other than $source.<key> need a migration manager")
        }
        // New attributes take their default, as do the nils of one that became required.
        let isNew = property?.sourceKey == nil
        if !attribute.defaultValue.isNull, isNew || !attribute.isOptional {
            values.append(source.dialect.encode(attribute.defaultValue))
            expression = isNew ? "?" : "COALESCE(\(expression), ?)"
        }
        return expression
    }

    /// A to-one's key (and its position in the inverse's ordered list) from the source's to-one.
    private func toOneExpressions(_ name: String, plan: EntityMapping, from: EntityTable, entity: String) throws -> (key: String, order: String) {
        guard let key = plan.relationshipMappings.first(where: { $0.name == name })?.sourceKey else { return ("NULL", "NULL") }
        guard let column = from.column(for: key), case .toOne(let destination, let orderColumn) = column.kind else {
            throw MigrationError(.invalidMapping, entity: entity, key: name, "the mapping takes to-one \(name) from \(key), which is not a to-one relationship of \(from.name)")
        }
        return (keys.key("s." + column.name, sourceEntity: destination), orderColumn.map { "s." + $0 } ?? "s.Z_PK")
    }

    /// The owner-key columns in `table`'s root table of to-many relationships without an
    /// inverse whose members may be objects of `table`'s entity.
    private func hiddenOwnerColumns(of table: EntityTable) -> [(owner: String, relationship: String, column: String, order: String?)] {
        var result: [(owner: String, relationship: String, column: String, order: String?)] = []
        for entity in request.destinationModel.entities.sorted(by: { $0.name < $1.name }) {
            for relationship in entity.declaredProperties.compactMap({ $0 as? RelationshipDescription })
            where relationship.isToMany && !relationship.isTransient && relationship.inverseRelationship == nil {
                guard case .foreignKey(let member, let memberTable, let column, let order)? = destination.tables[entity.name]?.toMany[relationship.name],
                    memberTable == table.table, destination.tables[member]?.entityNumbers.contains(table.number) == true
                else { continue }
                result.append((entity.name, relationship.name, column, order))
            }
        }
        return result
    }

    /// The owner key a member row holds for a to-many without inverse, from however the source
    /// held the relationship: the same hidden column, or a to-one without inverse that became
    /// this to-many (the owner is the object whose to-one pointed at this row).
    private func hiddenOwnerExpressions(_ owner: String, relationship: String, memberTable: EntityTable) throws -> (key: String, order: String) {
        guard let sourceOwner = carriedSource(of: owner), let plan = mapping.entityMapping(forDestinationEntity: owner),
            let key = plan.relationshipMappings.first(where: { $0.name == relationship })?.sourceKey,
            let ownerTable = source.tables[sourceOwner]
        else { return ("NULL", "NULL") }
        if case .foreignKey(_, let table, let column, let order)? = ownerTable.toMany[key], table == memberTable.table {
            return (keys.key("s." + column, sourceEntity: sourceOwner), order.map { "s." + $0 } ?? "s.Z_PK")
        }
        if let column = ownerTable.column(for: key), case .toOne = column.kind {
            let family = ownerTable.entityNumbers.map(String.init).joined(separator: ", ")
            let ownerKey = keys.key("o.Z_PK", sourceEntity: sourceOwner)
            return ("(SELECT \(ownerKey) FROM \(sourceTable(ownerTable.table)) AS o WHERE o.\(column.name) = s.Z_PK AND o.Z_ENT IN (\(family)) LIMIT 1)", "s.Z_PK")
        }
        throw MigrationError(.invalidMapping, entity: owner, key: relationship, "\(owner).\(relationship) cannot be carried from \(sourceOwner).\(key)")
    }
}
